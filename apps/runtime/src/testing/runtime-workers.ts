/** The workers one describe block starts, with a scratch folder: all stopped and the folder removed after the block. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stopRuntime, type RuntimeProcess } from './runtime-process.ts';

export interface RuntimeWorkers {
  /** The scratch folder (there from the block's beforeAll on). */
  dir: () => string;
  /** Starts a worker that the block's afterAll stops. */
  start: (args: string[], env?: Record<string, string>) => Promise<RuntimeProcess>;
}

/** Call inside a describe: registers the beforeAll that makes the folder and the afterAll that cleans up. */
export function runtimeWorkers(folderPrefix: string, start: (args: string[], env?: Record<string, string>) => Promise<RuntimeProcess>): RuntimeWorkers {
  const started: RuntimeProcess[] = [];
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), folderPrefix));
  });
  afterAll(async () => {
    await Promise.all(started.map((rt) => stopRuntime(rt)));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);
  return {
    dir: () => dir,
    start: async (args, env) => {
      const rt = await start(args, env);
      started.push(rt);
      return rt;
    },
  };
}

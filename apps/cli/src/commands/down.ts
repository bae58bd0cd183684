import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pidAlive } from '../platform/pid-alive.ts';
import { platformFile, readPlatformInfo } from '../platform/platform-file.ts';
import { stopStaleChildren } from '../platform/stale-children.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'stop the local platform started by `orrery up` (graceful, then forced)';

const HELP = `usage: orrery down [--data-dir .orrery] [--timeout 60]

Signals the supervisor recorded in <data-dir>/platform.json (SIGTERM), waits until it has stopped
every component, and kills whatever is left after --timeout seconds.`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A supervisor that exits between the liveness check and the signal is what we want, not an error. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** The flags, exported for `orrery completion`. */
export const options = {
  'data-dir': { type: 'string', default: '.orrery' },
  timeout: { type: 'string', default: '60' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('down', HELP, argv, {
    options,
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const dataDir = resolve(values['data-dir']);
  const info = readPlatformInfo(dataDir);
  if (!info) {
    console.log(`orrery down: nothing running for ${dataDir} (no platform.json)`);
    return 0;
  }
  const timeoutMs = Number(values.timeout) * 1000;
  const { supervisor } = info.pids;
  if (pidAlive(supervisor)) {
    console.log(`orrery down: stopping the supervisor (pid ${supervisor})`);
    signal(supervisor, 'SIGTERM');
    const end = Date.now() + timeoutMs;
    while (pidAlive(supervisor) && Date.now() < end) await sleep(200);
    if (pidAlive(supervisor)) {
      console.error(`orrery down: the supervisor did not stop within ${values.timeout} s; killing it and its children`);
      signal(supervisor, 'SIGKILL');
    }
  } else {
    console.log('orrery down: the supervisor is gone (crashed or killed); cleaning up its children');
  }
  // Whatever survived a dead supervisor (only processes that are really ours): SIGTERM, a short grace, SIGKILL.
  // Read again: a supervisor that restarted a child recorded the new pid.
  await stopStaleChildren(readPlatformInfo(dataDir) ?? info, (l) => console.log(`orrery down: ${l}`));
  rmSync(platformFile(dataDir), { force: true });
  console.log('orrery down: stopped');
  return 0;
}

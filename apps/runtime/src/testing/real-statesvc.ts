/** The real orrery-statesvc (spawnStatesvc) serving a master key and a keyspaces file, for worker tests. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStatesvc, type StatesvcProcess } from '@orrery/statesvc/testing';
import { afterAll, beforeAll } from 'vitest';

export { STATESVC_BIN } from '@orrery/statesvc/testing';

/** Writes `masterKey` and the `[namespace, keyspace]` pairs into `dir`, then starts statesvc on them (memory driver). */
export async function statesvcWithKeyspaces(dir: string, masterKey: Buffer, keyspaces: Array<[string, string]>): Promise<StatesvcProcess> {
  await writeFile(join(dir, 'master.key'), masterKey.toString('hex'));
  await writeFile(join(dir, 'keyspaces.yaml'), keyspaces.map(([ns, ks]) => `- {namespace: ${ns}, keyspace: ${ks}}\n`).join(''));
  return spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
}

/** Call inside a describe: statesvc on `keyspaces` in the folder `dir()` for the whole block; the getter gives the running one. */
export function statesvcForBlock(dir: () => string, masterKey: Buffer, keyspaces: Array<[string, string]>): () => StatesvcProcess {
  let statesvc: StatesvcProcess | undefined;
  beforeAll(async () => {
    statesvc = await statesvcWithKeyspaces(dir(), masterKey, keyspaces);
  }, 90_000);
  afterAll(async () => {
    await statesvc?.stop();
  }, 60_000);
  return () => statesvc!;
}

/** The real orrery-statesvc (spawnStatesvc) serving a master key and a keyspaces file, for worker tests. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStatesvc, type StatesvcProcess } from '@orrery/statesvc/testing';

export { STATESVC_BIN } from '@orrery/statesvc/testing';

/** Writes `masterKey` and the `[namespace, keyspace]` pairs into `dir`, then starts statesvc on them (memory driver). */
export async function statesvcWithKeyspaces(dir: string, masterKey: Buffer, keyspaces: Array<[string, string]>): Promise<StatesvcProcess> {
  await writeFile(join(dir, 'master.key'), masterKey.toString('hex'));
  await writeFile(join(dir, 'keyspaces.yaml'), keyspaces.map(([ns, ks]) => `- {namespace: ${ns}, keyspace: ${ks}}\n`).join(''));
  return spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
}

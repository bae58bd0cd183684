import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveStateToken } from '@orrery/auth';

const STATESVC_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'statesvc', 'bin', 'orrery-statesvc.mjs');

export interface BenchKeyspace {
  /** The temp folder with the master key and the keyspaces file (the caller removes it). */
  dir: string;
  /** What a function of the `bench/kv` keyspace sends: its state token and scope. */
  headers: Record<string, string>;
  /** orrery-statesvc's script and the flags every run of it gets (a free port, the two files). */
  bin: string;
  common: string[];
}

/**
 * The statesvc benchmarks' one keyspace (`bench/kv`, 100 000 keys) and its credentials: a master
 * key of `keyByte` repeated (a fixed key: the runs compare, nothing is secret), the keyspaces
 * file, and the headers a function of that keyspace sends.
 */
export function benchKeyspace(tempPrefix: string, keyByte: number): BenchKeyspace {
  const dir = mkdtempSync(join(tmpdir(), tempPrefix));
  const master = Buffer.alloc(32, keyByte);
  writeFileSync(join(dir, 'master.key'), master.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: bench, keyspace: kv, maxKeys: 100000}\n');
  const headers = { authorization: `Bearer ${deriveStateToken(master, 'bench', 'kv')}`, 'x-orrery-state-namespace': 'bench', 'x-orrery-state-keyspace': 'kv' };
  const common = ['--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')];
  return { dir, headers, bin: STATESVC_BIN, common };
}

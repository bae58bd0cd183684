import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResourceStore, createHttpStore } from '@orrery/store';
import { type SpawnedServer, spawnServer } from './spawn-server.ts';

const OPERATOR_BIN = join(import.meta.dirname, '..', '..', 'bin', 'orrery-operator.mjs');

export interface LocalOperatorProcess {
  op: SpawnedServer;
  dir: string;
  /** Where it publishes its workers' endpoints (`--endpoints-file`). */
  endpointsFile: string;
  /** The store token it made in its data dir (there is no token-less store). */
  token: string;
  store: ResourceStore;
  /** Stops it and removes its data dir. */
  stop(): Promise<void>;
}

/** The local operator as a real process in a fresh data dir, resyncing every 2 s. */
export async function startLocalOperator(prefix: string): Promise<LocalOperatorProcess> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const endpointsFile = join(dir, 'endpoints.yaml');
  const op = await spawnServer(OPERATOR_BIN, ['--port', '0', '--data-dir', dir, '--endpoints-file', endpointsFile, '--resync-seconds', '2']);
  const token = readFileSync(join(dir, 'secrets', 'store.token'), 'utf8').trim();
  return {
    op,
    dir,
    endpointsFile,
    token,
    store: createHttpStore(op.url, { token }),
    stop: async () => {
      await op.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

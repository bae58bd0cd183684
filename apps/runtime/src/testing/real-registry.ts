/** The real orrery-registry (apps/registry) on a one-member etcd, as a child process, for worker tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EtcdCluster } from '@orrery/etcdcluster';

const REGISTRY_BIN = fileURLToPath(new URL('../../../registry/bin/orrery-registry.mjs', import.meta.url));
const ETCD = process.env.ETCD_BIN ?? '/usr/bin/etcd';

/** Whether etcd and the registry's binary are on this machine (the tests skip otherwise). */
export const realRegistryAvailable = existsSync(ETCD) && existsSync(REGISTRY_BIN);

export interface RealRegistry {
  url: string;
  stop(): Promise<void>;
}

/** Starts etcd and the registry; writes under orrery.functions. need the credential derived from `masterKey`. */
export async function startRealRegistry(masterKey: Buffer): Promise<RealRegistry> {
  const keyDir = mkdtempSync(join(tmpdir(), 'runtime-registry-key-'));
  writeFileSync(join(keyDir, 'registry-master.key'), masterKey.toString('hex'));
  const etcd = await EtcdCluster.start({ size: 1 });
  const child = spawn(process.execPath, [
    REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','),
    '--admin-token', 'a-token-for-tests', '--replication-token', 'r-token-for-tests', '--prometheus-sd-token', 's-token-for-tests',
    '--request-timeout', '4s', '--registry-master-key-file', join(keyDir, 'registry-master.key'),
    '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    await stopChild(child);
    await etcd.close();
    rmSync(keyDir, { recursive: true, force: true });
  };
  try {
    return { url: await listeningUrl(child), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function listeningUrl(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`orrery-registry did not start: ${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+) admin \S+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`orrery-registry exited with ${code}: ${err}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}

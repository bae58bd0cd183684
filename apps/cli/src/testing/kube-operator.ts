/**
 * The real operator for Kubernetes (apps/operator's binary, `--backend kubernetes`) as a host
 * process against the test cluster, for CLI tests that reach its admin API the way they would
 * in a cluster. It listens on the node's address, not loopback: the API server proxies to
 * Service endpoints, and Kubernetes refuses loopback addresses in Endpoints. Started as a
 * process, never imported: apps do not import other apps.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const OPERATOR = join(import.meta.dirname, '..', '..', '..', 'operator', 'bin', 'orrery-operator.mjs');

export interface KubeOperator {
  /** http://<host>:<port> */
  url: string;
  port: number;
  output(): string;
  stop(): Promise<void>;
}

export interface KubeOperatorOptions {
  kubeconfig: string;
  /** Where the lease and the generated Secrets live (the release namespace). */
  releaseNamespace: string;
  /** The namespace whose Functions it reconciles. */
  watchNamespace: string;
  host: string;
  /** NAME/KEY of the admin token Secret it generates in the release namespace. */
  adminTokenSecret: string;
}

export async function startKubeOperator(o: KubeOperatorOptions): Promise<KubeOperator> {
  const args = [
    OPERATOR, '--backend', 'kubernetes', '--kubeconfig', o.kubeconfig, '--host', o.host, '--port', '0',
    '--lease-namespace', o.releaseNamespace, '--namespace', o.watchNamespace, '--admin-token-secret', o.adminTokenSecret,
    // An image the process kubelet does not run: no worker comes up to change the Functions' status.
    '--runtime-image', 'registry.example/not-run-here/runtime:0.0.0',
    '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
  ];
  // No DATABASE_URL: the audit log is kept in memory, read back through the admin API.
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, DATABASE_URL: '', POD_IP: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the operator did not listen within 60 s:\n${log}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /listening (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the operator exited ${code}:\n${log}`));
    });
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    port: Number(new URL(url).port),
    output: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

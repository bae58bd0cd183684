/**
 * A router serving custom domains over TLS, as the TLS tests start it: a test CA and a certs
 * folder in the process group's folder, and `orrery-router --tls-port 0 --tls-certs-dir` over the
 * group's routes.yaml and endpoints.yaml (the test writes those and the hosts' certificates).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessGroup, Started } from './processes.ts';
import { makeTestCa, type TestCa } from './test-certificates.ts';

export interface TlsCertsFolder {
  /** The only trust anchor the tests' clients use. */
  ca: TestCa;
  /** The router's `--tls-certs-dir`: one bundle per host (writeRouterCertificate). */
  certsDir: string;
}

export function tlsCertsFolder(g: ProcessGroup): TlsCertsFolder {
  const ca = makeTestCa(join(g.dir, 'ca'));
  const certsDir = join(g.dir, 'router-certs');
  mkdirSync(certsDir);
  return { ca, certsDir };
}

export interface TlsRouter extends Started {
  plainPort: number;
  tlsPort: number;
  admin: string;
}

/** One more router of the group on the same routes and certificates; `args` go first (`--ingress node`, `--drain 2s`, …). */
export async function startTlsRouter(g: ProcessGroup, certsDir: string, args: string[] = []): Promise<TlsRouter> {
  const r = await g.router([...args, '--routes-file', join(g.dir, 'routes.yaml'), '--endpoints-file', join(g.dir, 'endpoints.yaml'), '--tls-port', '0', '--tls-certs-dir', certsDir]);
  // The TLS listener's port is only in the start line (`… tls https://127.0.0.1:<port> …`).
  const tlsPort = Number(/ tls https:\/\/127\.0\.0\.1:(\d+)/.exec(r.output())![1]);
  return { child: r.child, output: r.output, plainPort: Number(new URL(r.url).port), tlsPort, admin: r.admin };
}

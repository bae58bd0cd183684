/**
 * `orrery-operator --backend kubernetes`: the operator as it runs in a cluster. Every replica
 * serves the admission webhook and /healthz; only the Lease holder reconciles.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { readMasterKeyFile } from '@orrery/auth';
import { EnvironmentSchema, GROUP_VERSION } from '@orrery/spec';
import { startWebhookServer } from '../../webhook/webhook-server.ts';
import { ElectedOperator } from './elected-operator.ts';
import { Informer } from './informer.ts';
import { KubeClient, kubeConfigFor } from './kube-client.ts';

export const KUBERNETES_USAGE = `usage: orrery-operator --backend kubernetes [--host 0.0.0.0] [--port 0]
  [--kubeconfig FILE | --server URL (no auth; tests and kubectl proxy)]   (default: in-cluster)
  [--namespace NS (watch one namespace; default all)] [--lease-namespace orrery-system] [--lease-name orrery-operator]
  [--identity NAME] [--lease-duration-seconds 15] [--renew-deadline-seconds 10] [--retry-period-seconds 2]
  [--webhook-port 9443] [--webhook-cert-file tls.crt --webhook-key-file tls.key]
  [--state-url URL] [--master-key-file FILE] [--router-url URL]`;

function kubeConfig(values: { kubeconfig?: string; server?: string }): KubeConfig {
  if (values.server) return kubeConfigFor({ server: values.server });
  const kc = new KubeConfig();
  if (values.kubeconfig) kc.loadFromFile(values.kubeconfig);
  else kc.loadFromCluster();
  return kc;
}

export async function runKubernetesOperator(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        kubeconfig: { type: 'string' },
        server: { type: 'string' },
        namespace: { type: 'string' },
        'lease-namespace': { type: 'string', default: 'orrery-system' },
        'lease-name': { type: 'string', default: 'orrery-operator' },
        identity: { type: 'string' },
        'lease-duration-seconds': { type: 'string', default: '15' },
        'renew-deadline-seconds': { type: 'string', default: '10' },
        'retry-period-seconds': { type: 'string', default: '2' },
        'webhook-port': { type: 'string' },
        'webhook-host': { type: 'string' },
        'webhook-cert-file': { type: 'string' },
        'webhook-key-file': { type: 'string' },
        'state-url': { type: 'string' },
        'master-key-file': { type: 'string' },
        'router-url': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${KUBERNETES_USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    console.log(KUBERNETES_USAGE);
    process.exit(0);
  }
  const seconds = (flag: 'lease-duration-seconds' | 'renew-deadline-seconds' | 'retry-period-seconds') => {
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0) {
      process.stderr.write(`orrery-operator: --${flag} must be a positive number of seconds\n`);
      process.exit(2);
    }
    return n * 1000;
  };
  if (Boolean(values['webhook-cert-file']) !== Boolean(values['webhook-key-file'])) {
    process.stderr.write('orrery-operator: --webhook-cert-file and --webhook-key-file go together\n');
    process.exit(2);
  }
  const log = (msg: string) =>
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), component: 'orrery-operator', backend: 'kubernetes', msg })}\n`);

  const client = new KubeClient(kubeConfig(values));
  const identity = values.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
  const elected = new ElectedOperator({
    client,
    namespace: values.namespace,
    masterKey: values['master-key-file'] ? readMasterKeyFile(values['master-key-file']) : undefined,
    stateUrl: values['state-url'],
    routerUrl: values['router-url'],
    log,
    election: {
      namespace: values['lease-namespace'],
      name: values['lease-name'],
      identity,
      leaseDurationMs: seconds('lease-duration-seconds'),
      renewDeadlineMs: seconds('renew-deadline-seconds'),
      retryPeriodMs: seconds('retry-period-seconds'),
      log,
    },
  });

  // Every replica answers admission, so validation needs its own (unelected) Environment cache.
  const environments = new Informer(client, { apiVersion: GROUP_VERSION, kind: 'Environment', namespace: values.namespace, log });
  const webhook =
    values['webhook-port'] !== undefined
      ? await startWebhookServer({
          host: values['webhook-host'] ?? values.host,
          port: Number(values['webhook-port']),
          tls: values['webhook-cert-file'] ? { certFile: values['webhook-cert-file'], keyFile: values['webhook-key-file']! } : undefined,
          lookup: {
            environment: (ns, name) => {
              const r = EnvironmentSchema.safeParse(environments.get(ns, name));
              return r.success ? r.data : undefined;
            },
          },
          log,
        })
      : undefined;
  if (webhook) environments.start();

  const server = createServer((req, res) => {
    if (req.url === '/healthz' || req.url === '/readyz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, identity, leader: elected.isLeader }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.url}`, code: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(Number(values.port), values.host, resolve));
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  if (webhook) process.stdout.write(`webhook ${webhook.url}\n`);
  process.stdout.write(`listening http://${host}:${port}\n`);
  elected.start();
  log(`started as ${identity}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: releasing the lease and stopping`);
    // Release first, so another replica takes over without waiting for the lease to expire.
    await elected.stop({ release: true });
    environments.stop();
    await webhook?.close();
    server.closeAllConnections();
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

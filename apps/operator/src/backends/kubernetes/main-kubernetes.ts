/**
 * `orrery-operator --backend kubernetes`: the operator as it runs in a cluster. Every replica
 * serves the admission webhook, /healthz and the platform's APIs over the CRDs (the resource
 * store on /v1/store/ for the routers and statesvc, the admin API on /trpc/ for the console);
 * only the Lease holder reconciles. Reads top to bottom: config → credentials and components →
 * webhook → server → the elected operator → shutdown (the steps are in wiring/).
 */
import { registerUrlSecret } from '@orrery/log';
import { observabilityFromFlags } from '../../observability-from-flags.ts';
import { readConfigOrExit } from '../../wiring/command-line.ts';
import { listeningAddress } from '../../wiring/listening-address.ts';
import { shutdownOnSignals } from '../../wiring/signal-shutdown.ts';
import { createKubeComponents } from './wiring/kube-components.ts';
import { KUBERNETES_USAGE, parseKubeConfig } from './wiring/kube-config.ts';
import { createElectedOperator } from './wiring/kube-elected.ts';
import { advertisedUrl, listenKubeServer, serveKubeRoutes } from './wiring/kube-server.ts';
import { stopKubeOperator } from './wiring/kube-shutdown.ts';
import { startKubeWebhook } from './wiring/kube-webhook.ts';

export async function runKubernetesOperator(args: string[]): Promise<void> {
  const config = readConfigOrExit(KUBERNETES_USAGE, () => parseKubeConfig(args, process.env));
  const { logger, tracing } = await observabilityFromFlags(config.observability, KUBERNETES_USAGE, { backend: 'kubernetes' });
  const log = (msg: string, fields?: Record<string, unknown>) => logger.info(msg, fields);
  const warn = (msg: string, fields?: Record<string, unknown>) => logger.warn(msg, fields);
  // Credentials this process holds, masked wherever a later record would carry them (redaction.ts).
  registerUrlSecret(config.databaseUrl);
  registerUrlSecret(process.env.DATABASE_URL);

  const components = await createKubeComponents(config, log, warn);
  const webhook = await startKubeWebhook(config, components.client, log);
  const server = await listenKubeServer(config);
  const { elected, metrics } = createElectedOperator(config, components, advertisedUrl(config, server), log, warn);
  serveKubeRoutes(server, { identity: components.identity, storeToken: components.credentials.storeToken, metrics, elected, platformApi: components.platformApi, warn });
  if (webhook) process.stdout.write(`webhook ${webhook.url}\n`);
  process.stdout.write(`listening ${listeningAddress(server).url}\n`);
  elected.start();
  log(`started as ${components.identity}`);

  shutdownOnSignals({ log, what: 'releasing the lease and stopping', tracing, stop: () => stopKubeOperator({ elected, webhook, server, components }) });
}

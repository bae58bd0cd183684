/**
 * orrery-operator: the reconciling control plane. `--backend kubernetes` hands the process to the
 * Kubernetes backend (its own flags, no local store: docs/kubernetes-backend.md). `--backend local`,
 * the default, reads top to bottom below: config → components → server → start → shutdown. It owns
 * the embedded resource store (or opens Postgres), serves it to the other local processes over
 * HTTP, turns Functions into immutable Revisions and runs their workers as child processes.
 */
import { registerUrlSecret } from '@orrery/log';
import { startRollups } from './admin-api/start-rollups.ts';
import { parseLocalConfig, LOCAL_USAGE } from './backends/local/wiring/local-config.ts';
import { createLocalComponents } from './backends/local/wiring/local-components.ts';
import { startLocalServer } from './backends/local/wiring/local-server.ts';
import { stopLocalOperator } from './backends/local/wiring/local-shutdown.ts';
import { observabilityFromFlags } from './observability-from-flags.ts';
import { chooseBackend } from './wiring/backend-choice.ts';
import { exitStartFailed, readConfigOrExit } from './wiring/command-line.ts';
import { shutdownOnSignals } from './wiring/signal-shutdown.ts';

const { backend, args } = (() => {
  try {
    return chooseBackend(process.argv.slice(2));
  } catch (err) {
    return exitStartFailed((err as Error).message);
  }
})();
if (backend === 'kubernetes') {
  const { runKubernetesOperator } = await import('./backends/kubernetes/main-kubernetes.ts');
  await runKubernetesOperator(args);
  await new Promise<never>(() => {}); // serves until SIGTERM/SIGINT exit the process
}

const config = readConfigOrExit(LOCAL_USAGE, () => parseLocalConfig(args, process.env));
const { logger, tracing } = await observabilityFromFlags(config.observability, LOCAL_USAGE);
const log = (msg: string, fields?: Record<string, unknown>) => logger.info(msg, fields);
const warn = (msg: string, fields?: Record<string, unknown>) => logger.warn(msg, fields);
// Credentials this process holds, masked wherever a later record would carry them (redaction.ts).
registerUrlSecret(config.databaseUrl);
registerUrlSecret(process.env.DATABASE_URL);

const c = await createLocalComponents(config, log, warn);
startLocalServer(config, c, warn);

await c.operator.start();
c.autoscaler.start();
c.cron.start();
c.queueTriggers.start();
c.pool.start();
log('operator started', { dataDir: config.dataDir, store: c.db.kind, masterKey: c.masterKey ? 'configured' : 'absent', registryMasterKey: config.registryAuth.masterKeyFile ? 'configured' : 'absent' });
await c.registryClusters.start();
await c.stateSyncs.start();
const rollups = startRollups(c.platformApi.services, config.rollupIntervalMs, log);

shutdownOnSignals({ log, what: 'stopping workers and the store', tracing, stop: () => stopLocalOperator(c, rollups) });

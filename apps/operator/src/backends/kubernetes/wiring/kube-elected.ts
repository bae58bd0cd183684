/**
 * The elected part of the Kubernetes backend: only the Lease holder reconciles. Beside the function
 * controllers the leader runs the work that must have one writer: the console's history rollups
 * (two replicas sampling would double every point), the RegistryCluster and StateSync reconcilers
 * over the same store, the default RegistryCluster and the cron triggers. Stopping them leaves their pods running
 * for the next leader.
 */
import { TRACE_ENV_PASSTHROUGH } from '@orrery/tracing';
import { startRollups } from '../../../admin-api/start-rollups.ts';
import { createKeyspaceDeleter } from '../../../keyspace/delete-keyspace.ts';
import { OperatorMetrics } from '../../../metrics/operator-metrics.ts';
import { registrationCredentials } from '../../../reconcile/registration-credential.ts';
import { CronScheduler } from '../../../trigger/cron/cron-scheduler.ts';
import { QueueTriggers } from '../../../trigger/queue/queue-triggers.ts';
import { ensureDefaultRegistryCluster } from '../bootstrap/default-registry-cluster.ts';
import { ElectedOperator } from '../elected-operator.ts';
import { startKubernetesStateSyncs } from '../kube-state-sync-backend.ts';
import { kubeTriggerInvoker } from '../kube-trigger-invoker.ts';
import { KubeTriggerStatus } from '../kube-trigger-status.ts';
import { LEADER_URL_ANNOTATION } from '../leader-forwarding.ts';
import { startKubernetesRegistryClusters } from '../start-registry-clusters.ts';
import type { KubeComponents } from './kube-components.ts';
import type { KubeOperatorConfig } from './kube-config.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** `advertiseUrl`: where followers forward the leader's traffic, published on the Lease while this replica holds it. */
export function createElectedOperator(config: KubeOperatorConfig, c: KubeComponents, advertiseUrl: string, log: Log, warn: Log) {
  const { client, store, credentials } = c;
  const { masterKey, registryAuth } = credentials;
  const deleteKeyspace = config.stateUrl && masterKey ? createKeyspaceDeleter({ stateUrl: config.stateUrl, masterKey }) : undefined;
  // GET /metrics on every replica (public, as every component's; docs/security.md); one set across
  // leader terms. It reads the leadership of the operator it is handed to.
  const metrics: OperatorMetrics = new OperatorMetrics({ isLeader: (): boolean => elected.isLeader });
  // The queue triggers of the current term (none while following): the KPA reads their backlog.
  let queueTriggers: QueueTriggers | undefined;
  const elected = new ElectedOperator({
    client,
    kpa: config.kpa,
    kpaBacklog: (key, fn) => queueTriggers?.backlogOf(key, fn) ?? 0,
    metrics,
    namespace: config.namespace,
    masterKey,
    stateUrl: config.stateUrl,
    routerUrl: config.routerUrl,
    runtimeImage: config.runtimeImage,
    registryUrls: config.registryUrls,
    registrationCredential: registrationCredentials(registryAuth.masterKeys[0]),
    pool: { idleTimeoutMs: config.poolIdleTimeoutMs },
    progressDeadlineSeconds: config.progressDeadlineSeconds,
    revisionGc: config.revisionGc,
    routerCertsSecret: config.routerCertsSecret,
    packageBuilds: config.packageBuilds,
    workerTraceEnv: Object.fromEntries(TRACE_ENV_PASSTHROUGH.flatMap((n) => (process.env[n] ? [[n, process.env[n]]] : []))),
    // Deletion policy `delete`: statesvc's signed admin call (needs both the URL and the key).
    deleteKeyspace: deleteKeyspace
      ? async (namespace, keyspace) => {
          const deleted = await deleteKeyspace(namespace, keyspace);
          log('deleted keyspace', { namespace, keyspace, keys: deleted });
        }
      : undefined,
    whileLeading: () => {
      const rollups = startRollups(c.platformApi.services, config.rollupIntervalMs, log);
      const registries = startKubernetesRegistryClusters(client, store, { registryImage: config.registryImage, auth: registryAuth, log, metrics });
      const syncs = startKubernetesStateSyncs(client, store, { log });
      const stopDefaultCluster = new AbortController();
      if (config.defaultRegistryCluster) void ensureDefaultRegistryCluster(client, config.lease.namespace, config.defaultRegistryCluster, { signal: stopDefaultCluster.signal, log });
      // Cron triggers: the leader alone claims ticks (and a claim is a conditional status write, so a
      // deposed leader that has not noticed yet cannot run one twice either).
      const cron = new CronScheduler({
        store,
        status: new KubeTriggerStatus(client),
        invoker: kubeTriggerInvoker({ triggerUrl: config.triggers.url, routerUrl: config.routerUrl }),
        events: client.events,
        log,
      });
      cron.start();
      // Queue triggers: the leader alone consumes; a new term resumes from the durable consumers.
      const queue = new QueueTriggers({
        store,
        statusStore: new KubeTriggerStatus(client),
        invoker: kubeTriggerInvoker({ triggerUrl: config.triggers.url, routerUrl: config.routerUrl }),
        broker: config.queue,
        events: client.events,
        log,
        warn,
      });
      queueTriggers = queue;
      queue.start();
      const failed = (what: string) => (err: unknown) => warn(`${what} did not start`, { error: (err as Error).message });
      registries.catch(failed('RegistryCluster reconciler'));
      syncs.catch(failed('StateSync reconciler'));
      return {
        stop: () => {
          stopDefaultCluster.abort();
          rollups.stop();
          void cron.stop();
          if (queueTriggers === queue) queueTriggers = undefined;
          void queue.stop();
          void registries.then((r) => r.stop(), () => {});
          void syncs.then((s) => s.stop(), () => {});
        },
      };
    },
    log,
    election: {
      namespace: config.lease.namespace,
      name: config.lease.name,
      identity: c.identity,
      leaseDurationMs: config.lease.durationMs,
      renewDeadlineMs: config.lease.renewDeadlineMs,
      retryPeriodMs: config.lease.retryPeriodMs,
      holderAnnotations: { [LEADER_URL_ANNOTATION]: advertiseUrl },
      log,
    },
  });
  return { elected, metrics };
}

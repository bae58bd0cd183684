/**
 * Config, the first wiring step of `--backend kubernetes`: the command line becomes the settings of
 * one operator replica. Pure: a bad flag throws a UsageError naming it (main-kubernetes.ts prints
 * it with KUBERNETES_USAGE and exits 2); the flags both backends take are read by
 * wiring/shared-flags.ts. Nothing here talks to the cluster: Secrets and files are read later.
 */
import { parseDurationMs } from '@orrery/spec';
import { AUTOSCALER_USAGE } from '../../../autoscaler/autoscaler-flags.ts';
import { REVISION_GC_USAGE } from '../../../function/revision-gc-flags.ts';
import { TRIGGER_USAGE } from '../../../trigger/trigger-flags.ts';
import { QUEUE_USAGE } from '../../../trigger/queue/queue-flags.ts';
import { flagCheck, parseFlags, type ParsedCommandLine, UsageError } from '../../../wiring/command-line.ts';
import { readSharedFlags, SHARED_FLAGS, type SharedSettings } from '../../../wiring/shared-flags.ts';
import { parseDefaultRegistryClusterSpec } from '../bootstrap/default-registry-cluster.ts';
import { parseSecretRef } from '../bootstrap/generated-secret.ts';
import { DEFAULT_RUNTIME_IMAGE } from '../render/runtime-image.ts';
import { PACKAGE_BUILD_FLAGS, PACKAGE_BUILD_USAGE, readPackageBuildFlags } from '../package-build/package-build-flags.ts';
import type { PackageBuildSettings } from '../package-build/kube-package-builds.ts';

export const KUBERNETES_USAGE = `usage: orrery-operator --backend kubernetes [--host 127.0.0.1 (the chart passes 0.0.0.0)] [--port 0]
  [--kubeconfig FILE | --server URL (no auth; tests and kubectl proxy)]   (default: in-cluster)
  [--namespace NS (watch one namespace; default all)] [--lease-namespace orrery-system] [--lease-name orrery-operator]
  [--identity NAME] [--lease-duration-seconds 15] [--renew-deadline-seconds 10] [--retry-period-seconds 2]
  [--webhook-port 9443] [--webhook-cert-file tls.crt --webhook-key-file tls.key |
   --webhook-cert-secret NAME --webhook-service SVC [--webhook-configuration NAME] (the operator makes, rotates and
   serves its own certificate from this Secret in --lease-namespace and keeps caBundle in the named configurations)]
  [--store-token-secret | --admin-token-secret | --master-key-secret | --registry-master-key-secret NAME[/KEY]
   (instead of the matching *-file flag: read from this Secret in --lease-namespace, created with a random value if missing)]
  [--generate-secret NAME/KEY ... (create these Secrets with a random value if missing, e.g. in-cluster database passwords)]
  [--database-password-secret NAME[/KEY] (the password of --database-url, from this Secret)]
  [--default-registry-cluster NAME [--default-registry-cluster-spec JSON] (the leader creates this RegistryCluster in
   --lease-namespace once, if missing)]
  [--state-url URL] [--master-key-file FILE (state tokens; with --state-url also keyspace cleanup)] [--router-url URL]
  [--registry-url URL[,URL] (orrery-registry: every function worker registers there, which is how routers find it)]
  [--runtime-image ${DEFAULT_RUNTIME_IMAGE}] [--pool-idle-timeout 120s (specialized pool pods without traffic are deleted)]
  [--progress-deadline 600s (a deploy revision whose workers make no rollout progress this long fails; default Kubernetes' 600s)]
  [--registry-image orrery/registry:latest (the registry API beside each RegistryCluster's etcd members)]
  [--router-certs-secret NAME (the checked certificates of spec.domains go to this Secret in --lease-namespace, which
   the router pods mount; absent = certificates are checked and reported in status.domains only)]
  [--registry-master-key-file FILE [--previous-registry-master-key-file FILE] (workers' registration credentials under
   orrery.functions.; copied with the write tokens into each RegistryCluster's registry-auth Secret)]
  [--registry-write-tokens-file FILE ([[write_tokens]] with inline tokens)] [--require-registry-write-tokens]
  [--store-token-file FILE (bearer token of /v1/store/)] [--admin-token-file FILE] [--users-file FILE (re-read on change)]
  [--trusted-proxies ADDR|CIDR,… (peers whose X-Forwarded-* the admin API believes: the console pods, an ingress; default $ORRERY_TRUSTED_PROXIES, else none)]
  [--database-url URL (audit log, users, sessions; default $DATABASE_URL, else in memory)]
  [--router-admin-urls URL,URL (fixed list) | --router-pod-selector LABELS (default app.kubernetes.io/component=router)
   [--router-namespace NS (default: --lease-namespace)] [--router-admin-port 9090]] [--rollup-interval 10s]
  [--advertise-url http://POD_IP:PORT (where followers forward KPA stats, pokes and specializations while this replica leads;
   default http://$POD_IP:<port>, else this host)]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (reconcile spans over OTLP/HTTP; or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_* as in docs/tracing.md; default off)]
${PACKAGE_BUILD_USAGE}
${AUTOSCALER_USAGE}
${REVISION_GC_USAGE}
${TRIGGER_USAGE}
${QUEUE_USAGE}`;

const KUBERNETES_FLAGS = {
  ...SHARED_FLAGS,
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
  'webhook-cert-secret': { type: 'string' },
  'webhook-service': { type: 'string' },
  'webhook-configuration': { type: 'string', multiple: true },
  'store-token-secret': { type: 'string' },
  'admin-token-secret': { type: 'string' },
  'master-key-secret': { type: 'string' },
  'registry-master-key-secret': { type: 'string' },
  'generate-secret': { type: 'string', multiple: true },
  'database-password-secret': { type: 'string' },
  'default-registry-cluster': { type: 'string' },
  'default-registry-cluster-spec': { type: 'string' },
  'runtime-image': { type: 'string', default: DEFAULT_RUNTIME_IMAGE },
  'progress-deadline': { type: 'string' },
  'registry-image': { type: 'string', default: 'orrery/registry:latest' },
  'router-pod-selector': { type: 'string', default: 'app.kubernetes.io/component=router' },
  'router-namespace': { type: 'string' },
  'router-admin-port': { type: 'string', default: '9090' },
  'advertise-url': { type: 'string' },
  'router-certs-secret': { type: 'string' },
  ...PACKAGE_BUILD_FLAGS,
} as const;

/** A Secret in --lease-namespace the operator reads, creating it with a random value if missing; `flag` names it in errors. */
export interface GeneratedSecretFlag {
  flag: 'store-token-secret' | 'admin-token-secret' | 'master-key-secret' | 'registry-master-key-secret' | 'generate-secret' | 'database-password-secret';
  /** As given, for messages. */
  text: string;
  ref: { name: string; key: string };
}

export interface KubeOperatorConfig extends SharedSettings {
  /** --server (no auth), else --kubeconfig, else in-cluster. */
  cluster: { server: string | undefined; kubeconfig: string | undefined };
  /** Watch one namespace; undefined = all. */
  namespace: string | undefined;
  /** --identity; undefined = the pod's name (or the host's) plus a random suffix. */
  identity: string | undefined;
  /** The Lease only its holder reconciles under. Its namespace also holds the Secrets the operator generates. */
  lease: { namespace: string; name: string; durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Absent without --webhook-port. TLS from files, or a certificate the operator keeps in a Secret. */
  webhook: { host: string; port: number; certFiles: { certFile: string; keyFile: string } | undefined; certSecret: { name: string; service: string; configurations: string[] } | undefined } | undefined;
  secrets: {
    storeToken: GeneratedSecretFlag | undefined;
    adminToken: GeneratedSecretFlag | undefined;
    masterKey: GeneratedSecretFlag | undefined;
    registryMasterKey: GeneratedSecretFlag | undefined;
    databasePassword: GeneratedSecretFlag | undefined;
    /** --generate-secret: made for others (e.g. the in-cluster database's password), not read by the operator. */
    others: GeneratedSecretFlag[];
  };
  defaultRegistryCluster: { name: string; spec: Record<string, unknown> } | undefined;
  runtimeImage: string;
  registryImage: string;
  /** Whole seconds; undefined = Kubernetes' 600. */
  progressDeadlineSeconds: number | undefined;
  /** Without a fixed --router-admin-urls, every router pod these select is asked. */
  routerPods: { namespace: string; labelSelector: string; adminPort: number };
  advertiseUrl: string | undefined;
  /** --router-certs-secret, in --lease-namespace: where the routers' certificates go (docs/domains.md). */
  routerCertsSecret: { namespace: string; name: string } | undefined;
  /** --builder-image, --build-timeout, --package-volume-*: build Jobs of source.package (package-build/). */
  packageBuilds: PackageBuildSettings;
}

export function parseKubeConfig(args: string[], environment: NodeJS.ProcessEnv): ParsedCommandLine<KubeOperatorConfig> {
  const values = parseFlags(args, KUBERNETES_FLAGS);
  if (values.help) return 'help';
  const seconds = (flag: 'lease-duration-seconds' | 'renew-deadline-seconds' | 'retry-period-seconds') => {
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number of seconds`);
    return n * 1000;
  };
  if (Boolean(values['webhook-cert-file']) !== Boolean(values['webhook-key-file'])) throw new UsageError('--webhook-cert-file and --webhook-key-file go together');
  if (values['webhook-cert-secret'] && values['webhook-cert-file']) {
    throw new UsageError('--webhook-cert-secret (the operator makes the certificate) and --webhook-cert-file (someone else does) exclude each other');
  }
  if (values['webhook-cert-secret'] && !values['webhook-service']) throw new UsageError('--webhook-cert-secret needs --webhook-service (the certificate is issued for <service>.<namespace>.svc)');
  for (const [file, secret] of [['store-token-file', 'store-token-secret'], ['admin-token-file', 'admin-token-secret'], ['master-key-file', 'master-key-secret'], ['registry-master-key-file', 'registry-master-key-secret']] as const) {
    if (values[file] && values[secret]) throw new UsageError(`--${file} and --${secret} exclude each other`);
  }
  const secret = (flag: GeneratedSecretFlag['flag'], text: string | undefined, defaultKey: string): GeneratedSecretFlag | undefined => {
    if (!text) return undefined;
    try {
      return { flag, text, ref: parseSecretRef(text, defaultKey) };
    } catch (err) {
      throw new UsageError(`--${flag}: ${(err as Error).message}`);
    }
  };
  const defaultRegistryClusterSpec = flagCheck(() => parseDefaultRegistryClusterSpec(values['default-registry-cluster-spec']));
  // The Deployment field is whole seconds; absent, Kubernetes applies its 600.
  const progressDeadlineMs = values['progress-deadline'] === undefined ? undefined : parseDurationMs(values['progress-deadline']);
  if (progressDeadlineMs !== undefined && !(Number.isFinite(progressDeadlineMs) && progressDeadlineMs >= 1000 && progressDeadlineMs % 1000 === 0)) {
    throw new UsageError('--progress-deadline must be a whole number of seconds of at least 1s, like "600s" or "10m"');
  }
  const shared = readSharedFlags(values, environment, Boolean(values['registry-master-key-secret']));
  // The URL in the pod spec carries no password: --database-password-secret's goes into it.
  if (values['database-password-secret'] && shared.databaseUrl && !URL.canParse(shared.databaseUrl)) throw new UsageError('--database-url is not a URL (postgres://USER@HOST:5432/DB)');
  const routerAdminPort = Number(values['router-admin-port']);
  if (!Number.isInteger(routerAdminPort) || routerAdminPort < 1 || routerAdminPort > 65535) throw new UsageError('--router-admin-port must be a port number');
  const leaseNamespace = values['lease-namespace'];
  const packageBuilds = readPackageBuildFlags(values);
  return {
    ...shared,
    cluster: { server: values.server, kubeconfig: values.kubeconfig },
    namespace: values.namespace,
    identity: values.identity,
    lease: {
      namespace: leaseNamespace,
      name: values['lease-name'],
      durationMs: seconds('lease-duration-seconds'),
      renewDeadlineMs: seconds('renew-deadline-seconds'),
      retryPeriodMs: seconds('retry-period-seconds'),
    },
    webhook:
      values['webhook-port'] === undefined
        ? undefined
        : {
            host: values['webhook-host'] ?? values.host,
            port: Number(values['webhook-port']),
            certFiles: values['webhook-cert-file'] ? { certFile: values['webhook-cert-file'], keyFile: values['webhook-key-file']! } : undefined,
            certSecret: values['webhook-cert-secret'] ? { name: values['webhook-cert-secret'], service: values['webhook-service']!, configurations: values['webhook-configuration'] ?? [] } : undefined,
          },
    secrets: {
      others: (values['generate-secret'] ?? []).map((text) => secret('generate-secret', text, 'password')!),
      storeToken: secret('store-token-secret', values['store-token-secret'], 'token'),
      adminToken: secret('admin-token-secret', values['admin-token-secret'], 'token'),
      masterKey: secret('master-key-secret', values['master-key-secret'], 'master-key'),
      registryMasterKey: secret('registry-master-key-secret', values['registry-master-key-secret'], 'registry-master-key'),
      databasePassword: secret('database-password-secret', values['database-password-secret'], 'password'),
    },
    defaultRegistryCluster: values['default-registry-cluster'] ? { name: values['default-registry-cluster'], spec: defaultRegistryClusterSpec } : undefined,
    runtimeImage: values['runtime-image'],
    registryImage: values['registry-image'],
    progressDeadlineSeconds: progressDeadlineMs === undefined ? undefined : progressDeadlineMs / 1000,
    routerPods: { namespace: values['router-namespace'] ?? leaseNamespace, labelSelector: values['router-pod-selector'], adminPort: routerAdminPort },
    advertiseUrl: values['advertise-url'],
    routerCertsSecret: values['router-certs-secret'] ? { namespace: leaseNamespace, name: values['router-certs-secret'] } : undefined,
    packageBuilds,
  };
}

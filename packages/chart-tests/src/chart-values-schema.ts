/**
 * The values of charts/orrery as a zod schema: the one source of charts/orrery/values.schema.json
 * (`npm run gen:values-schema`; a test fails when the file is stale). helm checks every install,
 * upgrade, lint and template against that file, so a typo in a key or a wrong type fails before
 * anything reaches the cluster. Objects are strict (unknown keys refused) except the blocks that
 * are passed through to Kubernetes as they are (resources, affinity, annotations, …).
 */
import { z } from 'zod';
// The levels the components accept (packages/log); a path import keeps this package's dependencies as they are.
import { LOG_LEVELS } from '../../log/src/log-settings.ts';

const k8s = z.record(z.string(), z.unknown()).describe('Passed to Kubernetes as it is.');
const stringMap = z.record(z.string(), z.string());
const port = z.number().int().min(1).max(65535);
const duration = z.string().regex(/^\d+(ms|s|m|h)$/, 'a duration like 120s');
const pullPolicy = z.enum(['', 'Always', 'IfNotPresent', 'Never']);
const logLevel = z.enum(LOG_LEVELS);
/** A component's override of the global logLevel; empty = the global one. */
const componentLogLevel = z.union([z.literal(''), logLevel]).describe('Empty = the global logLevel.');
const secretName = z.string().regex(/^$|^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a Secret name (lowercase, digits, - and .), or empty');

const image = (what: string) =>
  z
    .object({
      repository: z.string().min(1).describe(`Repository of the ${what} image, without the registry (global.imageRegistry is prefixed).`),
      tag: z.string().describe('Empty = the chart’s appVersion (Orrery images).'),
      pullPolicy: pullPolicy.optional(),
    })
    .strict();

const pdb = (budget: 'maxUnavailable' | 'minAvailable') => z.object({ enabled: z.boolean(), [budget]: z.union([z.number().int().min(0), z.string()]) }).strict();

const placement = {
  extraEnv: z.array(k8s).describe('Extra env entries; credentials belong in valueFrom.secretKeyRef, never in value.'),
  podAnnotations: stringMap,
  nodeSelector: stringMap,
  tolerations: z.array(k8s),
  affinity: k8s,
};

const ingress = z
  .object({
    enabled: z.boolean(),
    className: z.string(),
    annotations: stringMap,
    hosts: z.array(
      z.object({ host: z.string(), paths: z.array(z.object({ path: z.string(), pathType: z.enum(['Prefix', 'Exact', 'ImplementationSpecific']) }).strict()) }).strict(),
    ),
    tls: z.array(k8s),
  })
  .strict();

const service = z.object({ type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']), port, annotations: stringMap }).strict();

const tokenRef = z.object({ existingSecret: secretName, key: z.string().min(1) }).strict();

export const ChartValuesSchema = z
  .object({
    nameOverride: z.string(),
    fullnameOverride: z.string(),
    commonLabels: stringMap,
    global: z
      .object({
        imageRegistry: z.string().describe('Registry prefix for every image, with or without a trailing slash.'),
        imagePullSecrets: z.array(z.object({ name: z.string().min(1) }).strict()),
        imagePullPolicy: pullPolicy.exclude(['']),
      })
      .strict(),
    logLevel: logLevel.describe('ORRERY_LOG_LEVEL of every Orrery component unless <component>.logLevel overrides it.'),
    tracing: z
      .object({
        otlpEndpoint: z
          .union([z.literal(''), z.string().regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL')])
          .describe('OTLP/HTTP collector base URL (OTEL_EXPORTER_OTLP_ENDPOINT) for the operator, routers, statesvc and, through the operator, the workers; empty = tracing off.'),
      })
      .strict(),
    podSecurityContext: k8s,
    containerSecurityContext: k8s,
    postgres: z
      .object({
        existingSecret: secretName.describe('Secret with the Postgres URL (production); empty = the in-cluster trial Postgres.'),
        urlKey: z.string().min(1),
        inCluster: z
          .object({
            enabled: z.boolean().describe('NOT FOR PRODUCTION: a single Postgres pod while existingSecret is empty.'),
            image: image('Postgres'),
            storage: z.string().min(1),
            storageClassName: z.string(),
            resources: k8s,
          })
          .strict(),
      })
      .strict(),
    redis: z
      .object({
        existingSecret: secretName,
        urlKey: z.string().min(1),
        inCluster: z.object({ enabled: z.boolean().describe('NOT FOR PRODUCTION: a single Redis pod while existingSecret is empty.'), image: image('Redis'), resources: k8s }).strict(),
      })
      .strict(),
    store: z.object({ url: z.string(), token: tokenRef }).strict(),
    admin: z.object({ token: tokenRef, users: tokenRef }).strict(),
    runtime: z.object({ image: image('runtime') }).strict(),
    packages: z
      .object({
        builder: z
          .object({
            image: image('package builder'),
            timeout: duration.describe('Longest a build may run (--build-timeout); the Job\'s deadline adds a minute.'),
          })
          .strict(),
        volume: z
          .object({
            size: z.string().regex(/^\d+(\.\d+)?([KMGTPE]i?)?$/, 'a Kubernetes quantity like 10Gi').describe('Size of each namespace\'s package volume (--package-volume-size).'),
            storageClass: z.string().regex(/^$|^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a StorageClass name, or empty').describe('Empty = the cluster\'s default StorageClass.'),
            accessMode: z.enum(['ReadWriteOnce', 'ReadWriteMany']).describe('ReadWriteMany when workers run on several nodes.'),
          })
          .strict(),
      })
      .strict()
      .describe('Packages with dependencies (source.package): build Jobs and the per-namespace package volume (docs/kubernetes-backend.md "Packages").'),
    state: z
      .object({
        masterKey: z.object({ existingSecret: secretName, key: z.string().min(1), previousKey: z.string() }).strict(),
        namespaceByteBudget: z.union([z.string(), z.number().int().positive()]),
      })
      .strict(),
    registry: z
      .object({
        url: z.string().regex(/^$|^https?:\/\/[^,\s]+(,https?:\/\/[^,\s]+)*$/, 'http(s) URLs, comma separated, or empty'),
        cluster: z
          .object({
            create: z.boolean(),
            name: z.string().regex(/^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a RegistryCluster name, or empty'),
            spec: k8s.describe('A RegistryCluster spec; the operator checks it against the CRD’s schema at start.'),
          })
          .strict(),
        tokens: z.object({ existingSecret: secretName, routerTokenKey: z.string().min(1) }).strict(),
        masterKey: z.object({ existingSecret: secretName, key: z.string().min(1), previousKey: z.string() }).strict(),
        writeTokens: z.object({ required: z.boolean(), existingSecret: secretName, key: z.string().min(1) }).strict(),
        image: image('registry'),
      })
      .strict(),
    operator: z
      .object({
        image: image('operator'),
        replicas: z.number().int().min(1),
        port,
        watchNamespace: z.string(),
        leaderElection: z
          .object({
            leaseName: z.string().min(1),
            leaseDurationSeconds: z.number().int().positive(),
            renewDeadlineSeconds: z.number().int().positive(),
            retryPeriodSeconds: z.number().int().positive(),
          })
          .strict(),
        resources: k8s,
        poolIdleTimeout: duration,
        progressDeadline: z
          .string()
          .regex(/^[1-9]\d*(s|m|h)$/, 'whole seconds, minutes or hours, like 600s')
          .describe('Passed as --progress-deadline: the progressDeadlineSeconds of deploy revisions’ Deployments.'),
        revisionGC: z
          .object({
            keep: z.number().int().min(0).max(1000).describe('Passed as --revision-gc-keep: non-routed revisions kept per Function besides the routed ones.'),
            minAge: z
              .string()
              .regex(/^(0|[0-9]+(ms|s|m|h))$/, 'a duration like 48h or 0s')
              .describe('Passed as --revision-gc-min-age: a revision younger than this is never collected.'),
          })
          .strict()
          .describe('Revision garbage collection where a Function’s spec.revisionGC says nothing (docs/functions.md "Old revisions").'),
        queue: z
          .object({
            url: z
              .string()
              .regex(/^$|^(nats|tls):\/\/[^@/,\s]+(,(nats|tls):\/\/[^@/,\s]+)*$/, 'empty, or nats://HOST:PORT (comma-separated; tls:// for TLS) without credentials')
              .describe('Passed as --queue-url: the NATS JetStream broker of queue triggers (docs/triggers.md "Queue"); empty = none (NoBroker).'),
            credentialsSecret: secretName.describe('Secret with the broker credentials, mounted and passed as --queue-credentials-file; empty = none.'),
            credentialsKey: z.string().min(1),
          })
          .strict()
          .describe('Queue triggers: where the leader consumes Functions’ queue triggers from.'),
        logLevel: componentLogLevel,
        podDisruptionBudget: pdb('maxUnavailable'),
        extraArgs: z.array(z.string()),
        ...placement,
      })
      .strict(),
    webhook: z
      .object({
        enabled: z.boolean(),
        port,
        validatePath: z.string().startsWith('/'),
        mutatePath: z.string().startsWith('/'),
        failurePolicy: z.enum(['Fail', 'Ignore']),
        timeoutSeconds: z.number().int().min(1).max(30),
        tls: z
          .object({
            secretName: secretName.describe('Your kubernetes.io/tls Secret; empty = the operator makes and rotates one.'),
            caBundle: z.string().describe('Base64 PEM of the CA of your Secret’s certificate.'),
          })
          .strict(),
        certManager: z
          .object({ enabled: z.boolean(), issuerRef: z.object({ name: z.string(), kind: z.enum(['Issuer', 'ClusterIssuer']) }).strict(), duration: z.string(), renewBefore: z.string() })
          .strict(),
      })
      .strict(),
    statesvc: z
      .object({
        image: image('statesvc'),
        replicas: z.number().int().min(1),
        port,
        driver: z.enum(['postgres', 'memory']),
        logLevel: componentLogLevel,
        poolSize: z.union([z.string(), z.number().int().positive()]),
        maxBodyBytes: z.union([z.string(), z.number().int().positive()]),
        idempotencyRetention: z.union([z.literal(''), duration]),
        changes: z
          .object({
            retention: z.union([z.literal(''), duration]),
            retentionEvents: z.union([z.literal(''), z.number().int().min(0)]),
            maxStreams: z.union([z.literal(''), z.number().int().positive()]),
            heartbeat: z.union([z.literal(''), duration]),
          })
          .strict(),
        resources: k8s,
        podDisruptionBudget: pdb('maxUnavailable'),
        extraArgs: z.array(z.string()),
        ...placement,
      })
      .strict(),
    router: z
      .object({
        image: image('router'),
        replicas: z.number().int().min(2),
        port,
        adminPort: port,
        domain: z.string(),
        publicUrl: z.string(),
        queueDepth: z.union([z.string(), z.number().int().positive()]),
        redisKeyPrefix: z.string(),
        syncPeriodMs: z.union([z.string(), z.number().int().positive()]),
        logLevel: componentLogLevel,
        registryNamespaces: z.array(z.string()),
        tls: z
          .object({ enabled: z.boolean(), port, servicePort: port })
          .strict()
          .describe('HTTPS for the custom domains of Functions (spec.domains): the routers terminate TLS with the certificates the operator copies into <fullname>-router-certs (docs/domains.md).'),
        service,
        ingress,
        resources: k8s,
        podDisruptionBudget: pdb('minAvailable'),
        extraArgs: z.array(z.string()),
        ...placement,
      })
      .strict(),
    console: z
      .object({
        enabled: z.boolean(),
        image: image('console'),
        replicas: z.number().int().min(1),
        port,
        service,
        ingress,
        resources: k8s,
        podDisruptionBudget: pdb('maxUnavailable'),
        ...placement,
      })
      .strict(),
    rbac: z.object({ create: z.boolean() }).strict(),
    serviceAccount: z
      .object({
        create: z.boolean(),
        name: z
          .object({ operator: z.string(), router: z.string(), statesvc: z.string(), console: z.string() })
          .partial()
          .strict()
          .describe('An existing ServiceAccount per component, e.g. {operator: my-sa}; the chart does not create those.'),
        annotations: stringMap,
      })
      .strict(),
    metrics: z
      .object({
        serviceMonitor: z.object({ enabled: z.boolean(), interval: duration, scrapeTimeout: duration, labels: stringMap }).strict(),
      })
      .strict(),
    networkPolicy: z
      .object({
        enabled: z.boolean(),
        functionWorkerPodSelector: k8s,
        ingressNamespaceSelector: k8s,
        metricsNamespaceSelector: k8s,
        dns: z.object({ namespaceSelector: k8s, port }).strict(),
        apiServer: z.object({ cidrs: z.array(z.string()), ports: z.array(port) }).strict(),
        postgres: z.object({ cidrs: z.array(z.string()), port }).strict(),
        redis: z.object({ cidrs: z.array(z.string()), port }).strict(),
        queue: z.object({ cidrs: z.array(z.string()), port }).strict().describe('The queue triggers’ NATS broker: operator egress when operator.queue.url is set.'),
        registry: z.object({ podSelector: k8s, publicPort: port }).strict(),
        etcd: z.object({ podSelector: k8s, clientPort: port, peerPort: port }).strict(),
        functionWorkerPort: port,
        functionNamespaces: z.array(z.string()),
      })
      .strict(),
  })
  .strict();

export type ChartValues = z.infer<typeof ChartValuesSchema>;

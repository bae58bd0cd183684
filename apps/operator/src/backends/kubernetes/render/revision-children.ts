import { REGISTRY_CREDENTIAL_FILE, STATE_TOKEN_FILE, type Environment, type OrreryFunction, type RegistryCredentialFile, type Revision, type StateCredentials, stateTokenFileBody } from '@orrery/spec';
import {
  COMPONENT_LABEL,
  ENVIRONMENT_LABEL,
  FUNCTION_LABEL,
  MANAGED_BY,
  type Manifest,
  REVISION_LABEL,
  childName,
  ownerReferences,
} from './labels.ts';
import { isReservedEnvName } from '../../../env/template-env.ts';
import { revisionWorkerArgs } from '../../../revision/revision-worker-args.ts';
import { runtimeImageFor } from './runtime-image.ts';
import { packageWorkerMount } from '../package-build/package-mount.ts';

export const RUNTIME_PORT = 8080;
export const CODE_DIR = '/var/orrery/code';
export const STATE_DIR = '/var/orrery/state';
export const REGISTRY_CREDENTIAL_DIR = '/var/orrery/registry';

export interface RevisionChildrenInput {
  fn: OrreryFunction;
  revision: Revision;
  environment?: Environment;
  /** `fencing` is only ever true here: absent keeps existing pod templates unchanged. */
  state?: StateCredentials;
  /** The platform's runtime image (`--runtime-image`), for Environments that do not name one. */
  runtimeImage?: string;
  /**
   * orrery-registry URLs the workers register with (routers discover endpoints only through
   * the registry's watch: a worker that does not register never gets traffic).
   */
  registryUrls?: string[];
  /** The revision's registration credential (writes under `orrery.functions.`), mounted from a Secret. */
  registration?: RegistryCredentialFile;
  /**
   * The Deployment's progressDeadlineSeconds (Kubernetes' default, 600 s, when absent): after it the
   * Deployment reports ProgressDeadlineExceeded and the revision is failed (Knative does the same).
   */
  progressDeadlineSeconds?: number;
  /**
   * Tracing settings the operator was given (OTEL_* of @orrery/tracing's TRACE_ENV_PASSTHROUGH: where
   * to export, how to sample — never headers with credentials), passed on to the workers so a
   * request's trace continues through them. A name the Function's template env sets wins.
   */
  workerTraceEnv?: Record<string, string>;
  /**
   * The built package's key when the template names `source.package` and its build succeeded
   * (package-build/): the workers mount that folder of the namespace's package volume.
   */
  packageKey?: string;
}

/**
 * Downward-API variables every worker container gets: the pod's IP is the address it registers
 * (`--advertise-host $(POD_IP)`), its name the registry instance id, so a restarted container
 * replaces its own registration instead of leaving a stale one until the lease runs out.
 */
export const POD_IDENTITY_ENV = [
  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
];

/**
 * Flags every worker needs to be reachable and found: listen on all interfaces (the runtime's
 * default is loopback, which neither the kubelet's probes nor routers can reach), register the
 * pod IP and name. `$(VAR)` is expanded by the kubelet from the container's env.
 */
export function workerNetworkArgs(registryUrls: string[] | undefined): string[] {
  const args = ['--host', '0.0.0.0', '--port', String(RUNTIME_PORT), '--advertise-host', '$(POD_IP)', '--instance-id', '$(POD_NAME)'];
  if (registryUrls?.length) args.push('--registry-url', registryUrls.join(','));
  return args;
}

export const revisionLabels = (rev: Revision): Record<string, string> => ({
  ...MANAGED_BY,
  [FUNCTION_LABEL]: rev.spec.function,
  [REVISION_LABEL]: rev.metadata.name,
});

/** Per-function identity: workers of every revision run as it (RBAC and NetworkPolicies select it). */
export function renderServiceAccount(fn: OrreryFunction): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: childName('orrery-fn', fn.metadata.name),
      namespace: fn.metadata.namespace,
      labels: { ...MANAGED_BY, [FUNCTION_LABEL]: fn.metadata.name },
      ownerReferences: ownerReferences({ kind: 'Function', metadata: fn.metadata }),
    },
    automountServiceAccountToken: false,
  };
}

/** Inline code becomes a ConfigMap mounted into the workers; other sources need none. */
export function renderCodeConfigMap(rev: Revision): Manifest | undefined {
  const inline = rev.spec.template.source.inline;
  if (inline === undefined) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: childName(rev.metadata.name, 'code'),
      namespace: rev.metadata.namespace,
      labels: revisionLabels(rev),
      ownerReferences: ownerReferences({ kind: 'Revision', metadata: rev.metadata }),
    },
    // A revision is immutable, so its code is too (the kubelet then stops watching it).
    immutable: true,
    data: { 'index.mjs': inline },
  };
}

/** The scoped state token, as the file the runtime reads (docs/architecture.md "Components", runtime). */
export function renderStateSecret(rev: Revision, state: StateCredentials): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: childName(rev.metadata.name, 'state'),
      namespace: rev.metadata.namespace,
      labels: revisionLabels(rev),
      ownerReferences: ownerReferences({ kind: 'Revision', metadata: rev.metadata }),
    },
    type: 'Opaque',
    stringData: {
      [STATE_TOKEN_FILE]: stateTokenFileBody(state),
    },
  };
}

/**
 * The revision's registration credential, beside the state token Secret and like it mounted
 * read-only as a file the runtime reads at start: never in the pod spec's env or args.
 */
export function renderRegistrySecret(rev: Revision, registration: RegistryCredentialFile): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: childName(rev.metadata.name, 'registry'),
      namespace: rev.metadata.namespace,
      labels: revisionLabels(rev),
      ownerReferences: ownerReferences({ kind: 'Revision', metadata: rev.metadata }),
    },
    type: 'Opaque',
    stringData: {
      [REGISTRY_CREDENTIAL_FILE]: JSON.stringify({ namespace: registration.namespace, service: registration.service, token: registration.token }),
    },
  };
}

function codeVolume(rev: Revision): { volume: object; mount: object } | undefined {
  const src = rev.spec.template.source;
  const cm = src.inline !== undefined ? { name: childName(rev.metadata.name, 'code'), key: 'index.mjs' } : src.configMapRef;
  if (!cm) return undefined;
  return {
    volume: { name: 'code', configMap: { name: cm.name, items: [{ key: cm.key, path: 'index.mjs' }] } },
    mount: { name: 'code', mountPath: CODE_DIR, readOnly: true },
  };
}

/**
 * The deploy executor's per-revision Deployment. `spec.replicas` is deliberately absent: the
 * autoscaler owns it through the scale subresource, and applying it here would fight the KPA.
 */
export function renderRevisionDeployment({ fn, revision: rev, environment, state, runtimeImage, registryUrls, registration, progressDeadlineSeconds, workerTraceEnv, packageKey }: RevisionChildrenInput): Manifest {
  const t = rev.spec.template;
  const labels = revisionLabels(rev);
  const code = codeVolume(rev);
  const env: Array<{ name: string; value?: string; valueFrom?: unknown }> = [
    ...POD_IDENTITY_ENV,
    { name: 'ORRERY_NAMESPACE', value: rev.metadata.namespace },
    { name: 'ORRERY_FUNCTION', value: rev.spec.function },
    { name: 'ORRERY_REVISION', value: rev.metadata.name },
  ];
  if (t.source.url) env.push({ name: 'ORRERY_SOURCE_URL', value: t.source.url });
  if (state) env.push({ name: 'ORRERY_STATE_URL', value: state.url });
  const userNames = new Set(t.env.map((e) => e.name));
  for (const [name, value] of Object.entries(workerTraceEnv ?? {}).sort()) if (!userNames.has(name)) env.push({ name, value });
  // Users cannot override the platform's variables, nor the pod identity the flags refer to. A
  // secret stays a real secretKeyRef: the kubelet reads it when the container starts, and the
  // value never appears in the Deployment (nor does the operator ever read it).
  for (const e of t.env) {
    if (isReservedEnvName(e.name)) continue;
    const ref = e.valueFrom?.secretKeyRef;
    env.push(
      ref
        ? { name: e.name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key, ...(ref.optional !== undefined ? { optional: ref.optional } : {}) } } }
        : { name: e.name, value: e.value ?? '' },
    );
  }
  const args = [...workerNetworkArgs(registryUrls), ...revisionWorkerArgs(rev, '/tmp/orrery')];
  if (code) args.push('--source-file', `${CODE_DIR}/index.mjs`);
  // The runtime reads the mounted Secret at start (a token in env would show in the pod spec).
  if (state) args.push('--state-url', state.url, '--state-keyspace', state.keyspace, '--state-token-file', `${STATE_DIR}/${STATE_TOKEN_FILE}`);
  if (state?.fencing) args.push('--state-fencing', 'on');
  const volumes: object[] = [{ name: 'tmp', emptyDir: {} }];
  const mounts: object[] = [{ name: 'tmp', mountPath: '/tmp' }];
  if (code) {
    volumes.push(code.volume);
    mounts.push(code.mount);
  }
  if (packageKey && t.source.package) {
    const pkg = packageWorkerMount(packageKey, t.source.package.main);
    args.push(...pkg.args);
    volumes.push(pkg.volume);
    mounts.push(pkg.mount);
  }
  if (state) {
    volumes.push({ name: 'state', secret: { secretName: childName(rev.metadata.name, 'state'), defaultMode: 0o444 } });
    mounts.push({ name: 'state', mountPath: STATE_DIR, readOnly: true });
  }
  if (registration) {
    args.push('--registry-credential-file', `${REGISTRY_CREDENTIAL_DIR}/${REGISTRY_CREDENTIAL_FILE}`);
    volumes.push({ name: 'registry', secret: { secretName: childName(rev.metadata.name, 'registry'), defaultMode: 0o444 } });
    mounts.push({ name: 'registry', mountPath: REGISTRY_CREDENTIAL_DIR, readOnly: true });
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: childName(rev.metadata.name, 'deployment'),
      namespace: rev.metadata.namespace,
      labels: { ...labels, [COMPONENT_LABEL]: 'worker' },
      ownerReferences: ownerReferences({ kind: 'Revision', metadata: rev.metadata }),
    },
    spec: {
      ...(progressDeadlineSeconds ? { progressDeadlineSeconds } : {}),
      selector: { matchLabels: { [REVISION_LABEL]: rev.metadata.name, [COMPONENT_LABEL]: 'worker' } },
      template: {
        metadata: { labels: { ...labels, [COMPONENT_LABEL]: 'worker' } },
        spec: {
          serviceAccountName: childName('orrery-fn', fn.metadata.name),
          automountServiceAccountToken: false,
          // The runtime drains in-flight requests on SIGTERM: give it the revision's timeout.
          terminationGracePeriodSeconds: t.timeoutSeconds + 5,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'runtime',
              image: runtimeImageFor(environment, runtimeImage),
              args,
              env,
              ports: [{ name: 'http', containerPort: RUNTIME_PORT }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 2 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
              ...(environment?.spec.resources ? { resources: environment.spec.resources } : {}),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
}

/** ClusterIP Service in front of one revision's workers (ready endpoints only). */
export function renderRevisionService(rev: Revision): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: childName(rev.metadata.name),
      namespace: rev.metadata.namespace,
      labels: revisionLabels(rev),
      ownerReferences: ownerReferences({ kind: 'Revision', metadata: rev.metadata }),
    },
    spec: {
      type: 'ClusterIP',
      selector: { [REVISION_LABEL]: rev.metadata.name, [COMPONENT_LABEL]: 'worker' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

/**
 * Every child a revision needs on Kubernetes. The pool executor runs on the Environment's pool
 * (see pool.ts) and only needs its code here; deploy and container get their own workers.
 */
export function renderRevisionChildren(input: RevisionChildrenInput): Manifest[] {
  const { revision: rev } = input;
  const out: Manifest[] = [];
  const code = renderCodeConfigMap(rev);
  if (code) out.push(code);
  if (rev.spec.template.executor === 'pool') return out;
  if (input.state) out.push(renderStateSecret(rev, input.state));
  if (input.registration) out.push(renderRegistrySecret(rev, input.registration));
  out.push(renderRevisionDeployment(input), renderRevisionService(rev));
  return out;
}

export { ENVIRONMENT_LABEL };
export { DEFAULT_RUNTIME_IMAGE } from './runtime-image.ts';

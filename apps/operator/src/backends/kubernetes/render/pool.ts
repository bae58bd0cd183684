import type { Environment } from '@orrery/spec';
import { poolPackageMount } from '../package-build/package-mount.ts';
import { COMPONENT_LABEL, ENVIRONMENT_LABEL, MANAGED_BY, type Manifest, childName, ownerReferences } from './labels.ts';
import { POD_IDENTITY_ENV, RUNTIME_PORT, workerNetworkArgs } from './revision-children.ts';
import { runtimeImageFor } from './runtime-image.ts';

/**
 * The Environment's pool key (Secret `orrery-pool-<env>-specialize`, key `token`): each pool
 * pod's single-use specialize nonce is HMAC(pool key, namespace + pod uid). Mounted only into the
 * pod's init container, at POOL_KEY_DIR.
 */
export const POOL_KEY_DIR = '/var/orrery/pool-key';
export const SPECIALIZE_TOKEN_KEY = 'token';
/** The memory volume where the init container leaves the nonce's verifier for the runtime. */
export const SPECIALIZE_DIR = '/var/orrery/specialize';
export const SPECIALIZE_VERIFIER_FILE = `${SPECIALIZE_DIR}/verifier`;

/** What the pool Deployment needs besides the Environment (all optional for old callers). */
export interface PoolRenderOptions {
  /** orrery-registry URLs: a specialized worker registers under its revision so routers find it. */
  registryUrls?: string[];
  /** Function-agnostic statesvc URL (the token arrives at specialize; this is only the default). */
  stateUrl?: string;
  /** The operator's OTEL_* settings (as for deploy workers, revision-children.ts): pool workers trace too. */
  workerTraceEnv?: Record<string, string>;
  /**
   * The namespace's package volume exists (PVC `orrery-packages`): mount it read-only, so pods
   * can be specialized with a built package (package-build/package-mount.ts). Only then: a pod
   * naming a claim that does not exist would wait in Pending forever.
   */
  packageVolume?: boolean;
}

/** The Secret holding an Environment's pool key (`orrery-pool-<env>-specialize`). */
export const specializeSecretName = (environment: string): string => childName('orrery-pool', environment, 'specialize');

const poolLabels = (env: Environment): Record<string, string> => ({
  ...MANAGED_BY,
  [ENVIRONMENT_LABEL]: env.metadata.name,
  [COMPONENT_LABEL]: 'pool',
});

/** Identity of the generic workers: they hold no function's secrets until specialized. */
export function renderPoolServiceAccount(env: Environment): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels: poolLabels(env),
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    automountServiceAccountToken: false,
  };
}

/**
 * The pool executor's warm generic workers of one Environment. Unlike revision Deployments the
 * replica count is the spec's `poolSize`, so the operator applies it.
 */
export function renderPoolDeployment(env: Environment, runtimeImage?: string, opts: PoolRenderOptions = {}): Manifest {
  const labels = poolLabels(env);
  const containerEnv: object[] = [...POD_IDENTITY_ENV];
  if (opts.stateUrl) containerEnv.push({ name: 'ORRERY_STATE_URL', value: opts.stateUrl });
  for (const [name, value] of Object.entries(opts.workerTraceEnv ?? {}).sort()) containerEnv.push({ name, value });
  const image = runtimeImageFor(env, runtimeImage);
  const hardened = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
  const args = [
    '--mode', 'pool',
    ...workerNetworkArgs(opts.registryUrls),
    '--namespace', env.metadata.namespace,
    '--work-dir', '/tmp/orrery',
    // Only the hash of this pod's nonce: the executor alone can specialize it, once.
    '--specialize-verifier-file', SPECIALIZE_VERIFIER_FILE,
  ];
  // The init container is the only one that mounts the pool key: function code, which later runs
  // in the runtime container, can read neither the key nor a nonce for any other pod.
  const verifierInit = {
    name: 'specialize-verifier',
    image,
    args: ['write-specialize-verifier', '--pool-key-file', `${POOL_KEY_DIR}/${SPECIALIZE_TOKEN_KEY}`, '--namespace', env.metadata.namespace, '--pod-uid', '$(POD_UID)', '--out', SPECIALIZE_VERIFIER_FILE],
    env: [{ name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } }],
    securityContext: hardened,
    volumeMounts: [
      { name: 'pool-key', mountPath: POOL_KEY_DIR, readOnly: true },
      { name: 'specialize', mountPath: SPECIALIZE_DIR },
    ],
  };
  const packages = opts.packageVolume ? poolPackageMount() : undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels,
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    spec: {
      replicas: env.spec.poolSize,
      selector: { matchLabels: { [ENVIRONMENT_LABEL]: env.metadata.name, [COMPONENT_LABEL]: 'pool' } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: childName('orrery-pool', env.metadata.name),
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          initContainers: [verifierInit],
          containers: [
            {
              name: 'runtime',
              image,
              args,
              env: containerEnv,
              ports: [{ name: 'http', containerPort: RUNTIME_PORT }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 2 },
              ...(env.spec.resources ? { resources: env.spec.resources } : {}),
              securityContext: hardened,
              // Writable: the runtime removes the verifier once its nonce is used.
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'specialize', mountPath: SPECIALIZE_DIR },
                ...(packages ? [packages.mount] : []),
              ],
            },
          ],
          // The pool key Secret is not optional: without it the init container fails and the pod
          // never starts (rather than a worker nobody, or anybody, can specialize).
          volumes: [
            { name: 'tmp', emptyDir: {} },
            { name: 'specialize', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
            { name: 'pool-key', secret: { secretName: specializeSecretName(env.metadata.name), defaultMode: 0o444 } },
            ...(packages ? [packages.volume] : []),
          ],
        },
      },
    },
  };
}

/** Headless Service: the executor addresses pool workers one by one to specialize them. */
export function renderPoolService(env: Environment): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels: poolLabels(env),
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    spec: {
      clusterIP: 'None',
      selector: { [ENVIRONMENT_LABEL]: env.metadata.name, [COMPONENT_LABEL]: 'pool' },
      ports: [{ name: 'http', port: RUNTIME_PORT, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

/**
 * The pool key Secret. The key is an input, never generated here: renders must be pure and
 * repeatable, and a key that changed on every reconcile would lock the executor out of the
 * running pool pods (their verifiers were derived from it at start). KubernetesPoolExecutor's
 * `ensureSpecializeSecret` creates it once with a random key and reads it afterwards.
 */
export function renderSpecializeSecret(env: Environment, token: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: specializeSecretName(env.metadata.name),
      namespace: env.metadata.namespace,
      labels: poolLabels(env),
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    type: 'Opaque',
    // `data` (base64) rather than stringData: it is what the API server answers on reads.
    data: { [SPECIALIZE_TOKEN_KEY]: Buffer.from(token).toString('base64') },
  };
}

/** The pool's ServiceAccount, Deployment and Service (the specialize Secret comes from the executor). */
export function renderPoolChildren(env: Environment, runtimeImage?: string, opts: PoolRenderOptions = {}): Manifest[] {
  return [renderPoolServiceAccount(env), renderPoolDeployment(env, runtimeImage, opts), renderPoolService(env)];
}

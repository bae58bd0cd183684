/**
 * A RegistryCluster's Kubernetes objects, pure: a StatefulSet of etcd members behind a headless
 * Service, a PodDisruptionBudget, a ConfigMap holding each member's etcd config, the
 * `orrery-registry` Deployment with its Service, and the generated tokens Secret.
 *
 * Per-ordinal flags: every pod of a StatefulSet shares one template, and the etcd image
 * (distroless) has no shell to compute flags from the hostname, so each member's flags live in
 * the members ConfigMap as an etcd config file `<member>.yaml` (same keys as the flags) and the
 * pod runs `etcd --config-file=/etc/orrery-etcd/$(POD_NAME).yaml`. The operator writes a member's
 * file before the StatefulSet grows to its ordinal: bootstrap members with
 * `initial-cluster-state: new`, a learner with `existing` and the member list MemberAdd returned.
 * Ordinals start at 1 (`spec.ordinals.start`), so pod names are the planner's member names.
 */
import { createHash } from 'node:crypto';
import type { RegistryCluster } from '@orrery/spec';
import { stringify as toYaml } from 'yaml';
import { MANAGED_BY, type Manifest, childName, ownerReferences } from './labels.ts';
import { registryAuthArgs } from '../../../registry-cluster/registry-auth-args.ts';
import { registrySettingsArgs } from '../../../registry-cluster/registry-settings-args.ts';

export const ETCD_CLIENT_PORT = 2379;
export const ETCD_PEER_PORT = 2380;
export const REGISTRY_PORT = 8080;
/** The registry's admin listener binds loopback in the pod (it refuses other callers): port-forward to reach it. */
export const REGISTRY_ADMIN_PORT = 8081;
export const ETCD_CONFIG_DIR = '/etc/orrery-etcd';
export const ETCD_DATA_MOUNT = '/var/lib/etcd';
/** A subfolder, so a volume's lost+found never looks like etcd data. */
export const ETCD_DATA_DIR = `${ETCD_DATA_MOUNT}/data`;
export const DEFAULT_REGISTRY_IMAGE = 'orrery/registry:latest';
export const CLUSTER_LABEL = 'orrery.dev/registry-cluster';
const COMPONENT = 'orrery.dev/component';
/** Members' identities (`[{name, ordinal}]`) in the members ConfigMap, beside the `<member>.yaml` files. */
export const MEMBERS_KEY = 'members.json';
export const TOKEN_KEYS = { admin: 'admin-token', replication: 'replication-token', prometheusSd: 'prometheus-sd-token' } as const;
/** Non-root user of the pods (distroless `nonroot`); fsGroup makes the data volume writable for it. */
const NON_ROOT_UID = 65532;

export interface MemberAddress {
  clientURL: string;
  peerURL: string;
  listenClientURLs: string;
  listenPeerURLs: string;
}

/** How members are reached; the default is cluster DNS through the headless Service. Tests map it to loopback. */
export type MemberAddressing = (rc: RegistryCluster, ordinal: number) => MemberAddress;

export const etcdServiceName = (rc: RegistryCluster): string => childName(rc.metadata.name, 'etcd');
export const membersConfigMapName = (rc: RegistryCluster): string => childName(rc.metadata.name, 'etcd-members');
export const registryName = (rc: RegistryCluster): string => childName(rc.metadata.name, 'registry');
export const tokensSecretName = (rc: RegistryCluster): string => childName(rc.metadata.name, 'registry-tokens');
/** The registry master key(s) and write tokens the operator copies into the cluster's namespace. */
export const authSecretName = (rc: RegistryCluster): string => childName(rc.metadata.name, 'registry-auth');
export const AUTH_DIR = '/etc/orrery-registry/auth';
export const AUTH_KEYS = { masterKey: 'registry-master-key', previousMasterKey: 'previous-registry-master-key', writeTokens: 'write-tokens.toml' } as const;

/**
 * Write credentials of the registry pods (docs/registry.md "Write credentials"): the registry
 * master key the operator mints workers' registration credentials from (and the previous one
 * during a rotation), the write tokens file (`[[write_tokens]]` with inline `token`s: a
 * `token_file` would name a path of the operator's pod), and whether write tokens are required.
 */
export interface RegistryAuthMaterial {
  masterKeys: Buffer[];
  writeTokensToml?: string;
  requireWriteTokens: boolean;
}
/** PVC of a member: `<volumeClaimTemplate>-<pod>`. */
export const memberClaimName = (member: string): string => `data-${member}`;

export const clusterDnsAddressing: MemberAddressing = (rc, ordinal) => {
  const host = `${rc.metadata.name}-${ordinal}.${etcdServiceName(rc)}.${rc.metadata.namespace}.svc`;
  return {
    clientURL: `http://${host}:${ETCD_CLIENT_PORT}`,
    peerURL: `http://${host}:${ETCD_PEER_PORT}`,
    listenClientURLs: `http://0.0.0.0:${ETCD_CLIENT_PORT}`,
    listenPeerURLs: `http://0.0.0.0:${ETCD_PEER_PORT}`,
  };
};

export const clusterLabels = (rc: RegistryCluster, component: 'etcd' | 'registry'): Record<string, string> => ({
  ...MANAGED_BY,
  [CLUSTER_LABEL]: rc.metadata.name,
  [COMPONENT]: component,
});
const selectorOf = (rc: RegistryCluster, component: 'etcd' | 'registry') => ({ [CLUSTER_LABEL]: rc.metadata.name, [COMPONENT]: component });

// labels.ts types owners as the function kinds; the reference itself is kind-agnostic.
const ownedBy = (rc: RegistryCluster) => ownerReferences({ kind: 'RegistryCluster', metadata: rc.metadata });

const meta = (rc: RegistryCluster, name: string, component: 'etcd' | 'registry') => ({
  name,
  namespace: rc.metadata.namespace,
  labels: clusterLabels(rc, component),
  ownerReferences: ownedBy(rc),
});

/** The raft token: stable per resource (its uid), so a recreated resource never joins an old cluster. */
export const clusterToken = (rc: RegistryCluster): string => `orrery-${rc.metadata.namespace}-${rc.metadata.name}-${rc.metadata.uid ?? 'new'}`;

export interface MemberConfigInput {
  rc: RegistryCluster;
  ordinal: number;
  /** `name=peerURL,…`: every bootstrap member, or what MemberAdd returned for a learner. */
  initialCluster: string;
  state: 'new' | 'existing';
  heartbeatMs?: number;
  electionMs?: number;
  addressing?: MemberAddressing;
}

/** One member's etcd settings, keyed by flag name without `--` (etcd's config file uses the same keys). */
export function etcdMemberConfig(i: MemberConfigInput): Record<string, string | number> {
  const a = (i.addressing ?? clusterDnsAddressing)(i.rc, i.ordinal);
  return {
    name: `${i.rc.metadata.name}-${i.ordinal}`,
    'data-dir': ETCD_DATA_DIR,
    'listen-client-urls': a.listenClientURLs,
    'advertise-client-urls': a.clientURL,
    'listen-peer-urls': a.listenPeerURLs,
    'initial-advertise-peer-urls': a.peerURL,
    'initial-cluster': i.initialCluster,
    'initial-cluster-state': i.state,
    'initial-cluster-token': clusterToken(i.rc),
    'heartbeat-interval': i.heartbeatMs ?? 100,
    'election-timeout': i.electionMs ?? 1000,
    'logger': 'zap',
    'log-level': 'warn',
  };
}

/** The same settings as command-line flags (what `etcd --help` documents; shown in docs and tests). */
export const etcdFlags = (config: Record<string, string | number>): string[] => Object.entries(config).map(([k, v]) => `--${k}=${v}`);

/** The config file a member's pod reads (`<member>.yaml` in the members ConfigMap). */
export const etcdConfigFile = (config: Record<string, string | number>): string => toYaml(config);

export function renderMembersConfigMap(rc: RegistryCluster, members: Array<{ name: string; ordinal: number }>, configs: Record<string, string>): Manifest {
  const data: Record<string, string> = { [MEMBERS_KEY]: JSON.stringify([...members].sort((a, b) => a.ordinal - b.ordinal)) };
  for (const [member, yaml] of Object.entries(configs)) data[`${member}.yaml`] = yaml;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(rc, membersConfigMapName(rc), 'etcd'), data };
}

/** Headless: gives each member a stable DNS name, published before it is ready (peers need it to bootstrap). */
export function renderEtcdService(rc: RegistryCluster): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(rc, etcdServiceName(rc), 'etcd'),
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: selectorOf(rc, 'etcd'),
      ports: [
        { name: 'client', port: ETCD_CLIENT_PORT, targetPort: 'client', protocol: 'TCP' },
        { name: 'peer', port: ETCD_PEER_PORT, targetPort: 'peer', protocol: 'TCP' },
      ],
    },
  };
}

export function renderEtcdPdb(rc: RegistryCluster): Manifest {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(rc, etcdServiceName(rc), 'etcd'),
    // One voluntary eviction at a time keeps a majority of any odd cluster ≥ 3.
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorOf(rc, 'etcd') } },
  };
}

const podSecurityContext = { runAsNonRoot: true, runAsUser: NON_ROOT_UID, runAsGroup: NON_ROOT_UID, fsGroup: NON_ROOT_UID, seccompProfile: { type: 'RuntimeDefault' } };
const containerSecurityContext = { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

export interface EtcdStatefulSetOptions {
  /** Default `quay.io/coreos/etcd:v<spec.version>`. */
  etcdImage?: string;
}

/**
 * `spec.replicas` is deliberately absent: the reconciler owns it through the scale subresource,
 * growing only after a MemberAdd and shrinking only after a MemberRemove.
 */
export function renderEtcdStatefulSet(rc: RegistryCluster, o: EtcdStatefulSetOptions = {}): Manifest {
  const labels = clusterLabels(rc, 'etcd');
  const storage = rc.spec.storage;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(rc, rc.metadata.name, 'etcd'),
    spec: {
      serviceName: etcdServiceName(rc),
      // Bootstrap members must start together: each waits for the others before it is ready.
      podManagementPolicy: 'Parallel',
      ordinals: { start: 1 },
      selector: { matchLabels: selectorOf(rc, 'etcd') },
      updateStrategy: { type: 'RollingUpdate' },
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext,
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'etcd',
              image: o.etcdImage ?? `quay.io/coreos/etcd:v${rc.spec.version.replace(/^v/, '')}`,
              command: ['/usr/local/bin/etcd'],
              args: [`--config-file=${ETCD_CONFIG_DIR}/$(POD_NAME).yaml`],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [
                { name: 'client', containerPort: ETCD_CLIENT_PORT, protocol: 'TCP' },
                { name: 'peer', containerPort: ETCD_PEER_PORT, protocol: 'TCP' },
              ],
              // /readyz fails without a leader; /livez only when the process is wedged.
              readinessProbe: { httpGet: { path: '/readyz', port: 'client' }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 3 },
              livenessProbe: { httpGet: { path: '/livez', port: 'client' }, initialDelaySeconds: 15, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
              securityContext: containerSecurityContext,
              ...(rc.spec.resources ? { resources: rc.spec.resources } : {}),
              volumeMounts: [
                { name: 'data', mountPath: ETCD_DATA_MOUNT },
                { name: 'config', mountPath: ETCD_CONFIG_DIR, readOnly: true },
              ],
            },
          ],
          volumes: [{ name: 'config', configMap: { name: membersConfigMapName(rc) } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels },
          spec: {
            accessModes: ['ReadWriteOnce'],
            ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
            resources: { requests: { storage: storage.size } },
          },
        },
      ],
    },
  };
}

/** Generated once and never rewritten (tokens of running registries must not change under them). */
export function renderTokensSecret(rc: RegistryCluster, tokens: { adminToken: string; replicationToken: string; prometheusSdToken: string }): Manifest {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(rc, tokensSecretName(rc), 'registry'),
    type: 'Opaque',
    data: { [TOKEN_KEYS.admin]: b64(tokens.adminToken), [TOKEN_KEYS.replication]: b64(tokens.replicationToken), [TOKEN_KEYS.prometheusSd]: b64(tokens.prometheusSdToken) },
  };
}

/** The cluster's auth Secret, mounted read-only by its registry pods; undefined when there is nothing to put in it. */
export function renderRegistryAuthSecret(rc: RegistryCluster, m: RegistryAuthMaterial | undefined): Manifest | undefined {
  if (!m || (m.masterKeys.length === 0 && m.writeTokensToml === undefined)) return undefined;
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const data: Record<string, string> = {};
  const [current, previous] = m.masterKeys;
  if (current) data[AUTH_KEYS.masterKey] = b64(current.toString('hex'));
  if (current && previous) data[AUTH_KEYS.previousMasterKey] = b64(previous.toString('hex'));
  if (m.writeTokensToml !== undefined) data[AUTH_KEYS.writeTokens] = b64(m.writeTokensToml);
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(rc, authSecretName(rc), 'registry'), type: 'Opaque', data };
}

export interface RegistryDeploymentOptions {
  registryImage?: string;
  /** etcd client URLs of the voters (the registry follows them; a change rolls the pods). */
  etcdEndpoints: string[];
  /** Write credentials (the auth Secret's content); a change rolls the pods, which read them at start. */
  auth?: RegistryAuthMaterial;
}

export function renderRegistryDeployment(rc: RegistryCluster, o: RegistryDeploymentOptions): Manifest {
  const labels = clusterLabels(rc, 'registry');
  const r = rc.spec.registry;
  const generated = tokensSecretName(rc);
  const token = (env: string, ref: { name: string; key: string } | undefined, key: string) => ({
    name: env,
    valueFrom: { secretKeyRef: ref ?? { name: generated, key } },
  });
  const endpoints = [...o.etcdEndpoints].sort().join(',');
  const authSecret = renderRegistryAuthSecret(rc, o.auth);
  const authData = (authSecret?.data ?? {}) as Record<string, string>;
  // File paths only: the registry reads the key and the tokens from the read-only Secret volume.
  const authArgs = registryAuthArgs({
    masterKeyFile: authData[AUTH_KEYS.masterKey] ? `${AUTH_DIR}/${AUTH_KEYS.masterKey}` : undefined,
    previousMasterKeyFile: authData[AUTH_KEYS.previousMasterKey] ? `${AUTH_DIR}/${AUTH_KEYS.previousMasterKey}` : undefined,
    writeTokensFile: authData[AUTH_KEYS.writeTokens] ? `${AUTH_DIR}/${AUTH_KEYS.writeTokens}` : undefined,
    requireWriteTokens: o.auth?.requireWriteTokens,
  });
  const volumes: object[] = [{ name: 'tmp', emptyDir: {} }];
  const mounts: object[] = [{ name: 'tmp', mountPath: '/tmp' }];
  if (authSecret) {
    volumes.push({ name: 'auth', secret: { secretName: authSecretName(rc), defaultMode: 0o440 } });
    mounts.push({ name: 'auth', mountPath: AUTH_DIR, readOnly: true });
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(rc, registryName(rc), 'registry'),
    spec: {
      replicas: r.replicas,
      selector: { matchLabels: selectorOf(rc, 'registry') },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        // A digest (never the content) of the auth Secret: a rotated key or changed tokens roll the pods.
        metadata: { labels, ...(authSecret ? { annotations: { 'orrery.dev/registry-auth': manifestHash(authData) } } : {}) },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext,
          containers: [
            {
              name: 'registry',
              image: o.registryImage ?? DEFAULT_REGISTRY_IMAGE,
              args: [
                `--http-addr=0.0.0.0:${REGISTRY_PORT}`,
                `--admin-addr=127.0.0.1:${REGISTRY_ADMIN_PORT}`,
                `--etcd-endpoints=${endpoints}`,
                ...registrySettingsArgs({ clusterId: `${rc.metadata.namespace}/${rc.metadata.name}`, cleanupInterval: r.cleanupInterval, cleanupDeleteLimit: r.cleanupDeleteLimit }),
                ...authArgs,
              ],
              // Tokens through the environment (argv shows in `ps`), from the spec's Secrets or the generated one.
              env: [
                token('ORRERY_REGISTRY_ADMIN_TOKEN', r.adminTokenSecretRef, TOKEN_KEYS.admin),
                token('ORRERY_REGISTRY_REPLICATION_TOKEN', r.replicationTokenSecretRef, TOKEN_KEYS.replication),
                token('ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN', r.prometheusSdTokenSecretRef, TOKEN_KEYS.prometheusSd),
              ],
              ports: [{ name: 'http', containerPort: REGISTRY_PORT, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5, timeoutSeconds: 3 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 6 },
              securityContext: containerSecurityContext,
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
}

/** The public listener only: the admin listener is loopback-bound in the pod and gets no Service. */
export function renderRegistryService(rc: RegistryCluster): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(rc, registryName(rc), 'registry'),
    spec: { type: 'ClusterIP', selector: selectorOf(rc, 'registry'), ports: [{ name: 'http', port: REGISTRY_PORT, targetPort: 'http', protocol: 'TCP' }] },
  };
}

export const registryURL = (rc: RegistryCluster): string => `http://${registryName(rc)}.${rc.metadata.namespace}.svc:${REGISTRY_PORT}`;

export function renderRegistryPdb(rc: RegistryCluster): Manifest {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(rc, registryName(rc), 'registry'),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorOf(rc, 'registry') } },
  };
}

/** A short stable hash of what a manifest says, to skip applies that would change nothing. */
export const manifestHash = (m: unknown): string => createHash('sha256').update(JSON.stringify(m)).digest('hex').slice(0, 16);

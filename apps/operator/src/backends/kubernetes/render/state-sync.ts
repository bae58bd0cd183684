/**
 * A StateSync on Kubernetes, pure: the sync settings as a ConfigMap (plus a Secret when the Redis
 * URL is written inline), and the patch that hands them to the target component's Deployment as
 * environment variables with the settings hash in a pod-template annotation, so a change of
 * settings rolls the pods (the router reads its sync settings only at start).
 *
 * The patch is a server-side apply of just those fields under its own field manager: the
 * Deployment belongs to the chart, and a real API server merges `containers` and `env` by name,
 * so the operator owns its variables and the annotation and nothing else; applying an empty
 * patch under the same manager takes them away again.
 */
import { createHash } from 'node:crypto';
import { parseDurationMs, STATESYNC_ENV, type StateSync } from '@orrery/spec';
import { ROUTER_SYNCABLES } from '../../../state-sync/render-settings.ts';
import { MANAGED_BY, type Manifest, childName, ownerReferences } from './labels.ts';

/** Manager of the fields a StateSync adds to someone else's Deployment (kept apart from the operator's own objects). */
export const STATESYNC_FIELD_MANAGER = 'orrery-operator-statesync';
export const SETTINGS_HASH_ANNOTATION = 'orrery.dev/statesync-hash';
export const STATESYNC_ANNOTATION = 'orrery.dev/statesync';
export const URL_SECRET_KEY = 'url';
/** The environment the router reads its sync settings from (`--redis-*` flags win when given). */
export const SYNC_ENV = STATESYNC_ENV;

export interface KubeSyncSettings {
  /** Where the URL comes from: the user's Secret, or the one rendered from an inline `redis.url`. */
  urlSecret: { name: string; key: string };
  /** Set when the URL was inline (it goes into the rendered Secret, never the ConfigMap). */
  inlineUrl?: string;
  keyPrefix: string;
  syncPeriodMs: number;
  recordTtlMs: number;
  syncables: string[];
  tls: boolean;
  tlsInsecureSkipVerify: boolean;
}

export type KubeRenderResult = { ok: true; settings: KubeSyncSettings; hash: string } | { ok: false; reason: string; message: string };

export const settingsConfigMapName = (ss: StateSync): string => childName(ss.metadata.name, 'statesync');
export const urlSecretName = (ss: StateSync): string => childName(ss.metadata.name, 'statesync-redis');

/** Pods and Deployments of the target: its selector, else the chart's component label. */
export function targetSelector(ss: StateSync): Record<string, string> {
  const labels = ss.spec.target.selector?.matchLabels;
  return labels && Object.keys(labels).length ? labels : { 'app.kubernetes.io/component': ss.spec.target.component };
}

export const selectorString = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

export function renderKubeSyncSettings(ss: StateSync): KubeRenderResult {
  const { spec } = ss;
  if (spec.target.component !== 'router') {
    return { ok: false, reason: 'UnsupportedTarget', message: `target.component ${JSON.stringify(spec.target.component)}: only the router registers statesync tables` };
  }
  const ref = spec.redis.urlSecretRef;
  const url = spec.redis.url;
  if (!ref && !url) return { ok: false, reason: 'RedisUrlMissing', message: 'set redis.urlSecretRef (or redis.url)' };
  if (!ref && url && !/^rediss?:\/\//.test(url)) return { ok: false, reason: 'RedisUrlInvalid', message: 'redis.url must start with redis:// or rediss://' };
  const tls = spec.redis.tls?.enabled ?? url?.startsWith('rediss://') ?? false;
  const inlineUrl = ref ? undefined : tls && url!.startsWith('redis://') ? `rediss://${url!.slice('redis://'.length)}` : url;
  const settings: KubeSyncSettings = {
    urlSecret: ref ?? { name: urlSecretName(ss), key: URL_SECRET_KEY },
    ...(inlineUrl ? { inlineUrl } : {}),
    keyPrefix: spec.keyPrefix,
    syncPeriodMs: parseDurationMs(spec.syncPeriod),
    recordTtlMs: parseDurationMs(spec.recordTTL),
    syncables: [...spec.syncables],
    tls,
    tlsInsecureSkipVerify: spec.redis.tls?.insecureSkipVerify ?? false,
  };
  // The hash covers the URL too: a changed inline URL must roll the pods (env from a Secret is read at start).
  const hash = createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
  return { ok: true, settings, hash };
}

/** Syncables the router does not register (reported, not shared). */
export const unknownSyncables = (s: KubeSyncSettings): string[] => s.syncables.filter((x) => !(x in ROUTER_SYNCABLES));

const ownedBy = (ss: StateSync) => ownerReferences({ kind: 'StateSync', metadata: ss.metadata });
const meta = (ss: StateSync, name: string) => ({
  name,
  namespace: ss.metadata.namespace,
  labels: { ...MANAGED_BY, [STATESYNC_ANNOTATION]: ss.metadata.name },
  ownerReferences: ownedBy(ss),
});

export function renderSettingsConfigMap(ss: StateSync, s: KubeSyncSettings): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(ss, settingsConfigMapName(ss)),
    data: {
      [SYNC_ENV.keyPrefix]: s.keyPrefix,
      [SYNC_ENV.syncPeriodMs]: String(s.syncPeriodMs),
      [SYNC_ENV.recordTtlMs]: String(s.recordTtlMs),
      [SYNC_ENV.syncables]: s.syncables.join(','),
      [SYNC_ENV.tls]: String(s.tls),
      [SYNC_ENV.tlsInsecure]: String(s.tlsInsecureSkipVerify),
    },
  };
}

/** Only for an inline URL (it may carry a password, so never in the ConfigMap). */
export function renderUrlSecret(ss: StateSync, s: KubeSyncSettings): Manifest | undefined {
  if (!s.inlineUrl) return undefined;
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(ss, urlSecretName(ss)), type: 'Opaque', data: { [URL_SECRET_KEY]: Buffer.from(s.inlineUrl, 'utf8').toString('base64') } };
}

export interface TargetPatchInput {
  ss: StateSync;
  settings: KubeSyncSettings;
  hash: string;
  deployment: { name: string; namespace: string };
  /** The container that runs the component. */
  container: string;
}

export function renderTargetPatch(i: TargetPatchInput): Manifest {
  const cm = settingsConfigMapName(i.ss);
  const fromConfig = (name: string) => ({ name, valueFrom: { configMapKeyRef: { name: cm, key: name } } });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: i.deployment.name, namespace: i.deployment.namespace },
    spec: {
      template: {
        metadata: { annotations: { [SETTINGS_HASH_ANNOTATION]: i.hash, [STATESYNC_ANNOTATION]: i.ss.metadata.name } },
        spec: {
          containers: [
            {
              name: i.container,
              env: [
                { name: SYNC_ENV.url, valueFrom: { secretKeyRef: i.settings.urlSecret } },
                fromConfig(SYNC_ENV.keyPrefix),
                fromConfig(SYNC_ENV.syncPeriodMs),
                fromConfig(SYNC_ENV.recordTtlMs),
                fromConfig(SYNC_ENV.syncables),
                fromConfig(SYNC_ENV.tls),
                fromConfig(SYNC_ENV.tlsInsecure),
              ],
            },
          ],
        },
      },
    },
  };
}

/** The empty apply that takes the StateSync's variables and annotation back off the Deployment. */
export function renderTargetRelease(deployment: { name: string; namespace: string }): Manifest {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: deployment.name, namespace: deployment.namespace } };
}

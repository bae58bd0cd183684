import { StateSyncSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import {
  SYNC_ENV,
  renderKubeSyncSettings,
  renderSettingsConfigMap,
  renderTargetPatch,
  renderTargetRelease,
  renderUrlSecret,
  targetSelector,
} from './state-sync.ts';

const ss = (spec: Record<string, unknown>) =>
  StateSyncSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'StateSync', metadata: { namespace: 'orrery', name: 'routers', uid: 'u-9' }, spec: { target: {}, redis: {}, ...spec } });
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('StateSync renderers (Kubernetes)', () => {
  it('takes the Redis URL from the secretRef and the rest from the ConfigMap', () => {
    const s = ss({ redis: { urlSecretRef: { name: 'redis', key: 'url' } }, syncPeriod: '2s' });
    const r = renderKubeSyncSettings(s);
    if (!r.ok) throw new Error(r.message);
    expect(r.settings.urlSecret).toEqual({ name: 'redis', key: 'url' });
    expect(renderUrlSecret(s, r.settings)).toBeUndefined();
    const cm = renderSettingsConfigMap(s, r.settings) as Any;
    expect(cm.data).toEqual({
      ORRERY_REDIS_KEY_PREFIX: 'orrery',
      ORRERY_SYNC_PERIOD_MS: '2000',
      ORRERY_STATESYNC_RECORD_TTL_MS: '120000',
      ORRERY_STATESYNC_SYNCABLES: 'endpoint-quarantine,sticky-owners',
      ORRERY_REDIS_TLS: 'false',
      ORRERY_REDIS_TLS_INSECURE_SKIP_VERIFY: 'false',
    });
    expect(JSON.stringify(cm)).not.toContain('redis://');
    expect(cm.metadata.ownerReferences[0]).toMatchObject({ kind: 'StateSync', name: 'routers', uid: 'u-9', controller: true });
  });

  it('keeps an inline URL in a Secret of its own, never in the ConfigMap', () => {
    const s = ss({ redis: { url: 'redis://:pw@r:6379', tls: { enabled: true } } });
    const r = renderKubeSyncSettings(s);
    if (!r.ok) throw new Error(r.message);
    const secret = renderUrlSecret(s, r.settings) as Any;
    expect(Buffer.from(secret.data.url, 'base64').toString()).toBe('rediss://:pw@r:6379');
    expect(r.settings.urlSecret).toEqual({ name: 'routers-statesync-redis', key: 'url' });
    expect(JSON.stringify(renderSettingsConfigMap(s, r.settings))).not.toContain('pw@');
  });

  it('patches only env and the settings hash on the target container', () => {
    const s = ss({ redis: { urlSecretRef: { name: 'redis', key: 'url' } } });
    const r = renderKubeSyncSettings(s);
    if (!r.ok) throw new Error(r.message);
    const p = renderTargetPatch({ ss: s, settings: r.settings, hash: r.hash, deployment: { name: 'orrery-router', namespace: 'orrery' }, container: 'router' }) as Any;
    expect(p.metadata).toEqual({ name: 'orrery-router', namespace: 'orrery' });
    expect(Object.keys(p.spec)).toEqual(['template']);
    expect(p.spec.template.metadata.annotations).toEqual({ 'orrery.dev/statesync-hash': r.hash, 'orrery.dev/statesync': 'routers' });
    const [c] = p.spec.template.spec.containers;
    expect(Object.keys(c).sort()).toEqual(['env', 'name']);
    expect(c.env[0]).toEqual({ name: SYNC_ENV.url, valueFrom: { secretKeyRef: { name: 'redis', key: 'url' } } });
    expect(c.env[1]).toEqual({ name: SYNC_ENV.keyPrefix, valueFrom: { configMapKeyRef: { name: 'routers-statesync', key: SYNC_ENV.keyPrefix } } });
    expect(renderTargetRelease({ name: 'orrery-router', namespace: 'orrery' })).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orrery-router', namespace: 'orrery' } });
  });

  it('changes the hash with any setting, so a change rolls the pods', () => {
    const hash = (spec: Record<string, unknown>) => {
      const r = renderKubeSyncSettings(ss(spec));
      return r.ok ? r.hash : r.reason;
    };
    const base = { redis: { urlSecretRef: { name: 'redis', key: 'url' } } };
    expect(hash(base)).toBe(hash(base));
    expect(hash({ ...base, keyPrefix: 'other' })).not.toBe(hash(base));
    expect(hash({ ...base, redis: { urlSecretRef: { name: 'redis2', key: 'url' } } })).not.toBe(hash(base));
  });

  it('selects the target by its labels, else by the chart component label', () => {
    expect(targetSelector(ss({}))).toEqual({ 'app.kubernetes.io/component': 'router' });
    expect(targetSelector(ss({ target: { selector: { matchLabels: { app: 'r' } } } }))).toEqual({ app: 'r' });
  });

  it('explains what cannot be rendered', () => {
    expect(renderKubeSyncSettings(ss({}))).toMatchObject({ ok: false, reason: 'RedisUrlMissing' });
    expect(renderKubeSyncSettings(ss({ redis: { url: 'http://r' } }))).toMatchObject({ ok: false, reason: 'RedisUrlInvalid' });
    expect(renderKubeSyncSettings(ss({ target: { component: 'statesvc' }, redis: { url: 'redis://r' } }))).toMatchObject({ ok: false, reason: 'UnsupportedTarget' });
  });
});

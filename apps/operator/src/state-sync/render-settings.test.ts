import { describe, expect, it } from 'vitest';
import { StateSyncSpecSchema } from '@orrery/spec';
import { renderSettings, syncableName, unsupportedSyncables } from './render-settings.ts';

const spec = (over: Record<string, unknown>) => StateSyncSpecSchema.parse({ target: {}, redis: {}, ...over });

describe('renderSettings', () => {
  it('renders the spec defaults into router flags', () => {
    const r = renderSettings(spec({ redis: { url: 'redis://127.0.0.1:6379' } }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.settings).toEqual({ redisUrl: 'redis://127.0.0.1:6379', keyPrefix: 'orrery', syncPeriodMs: 10_000, recordTtlMs: 120_000, syncables: ['endpoint-quarantine', 'sticky-owners'], tls: false });
    expect(r.router.args).toEqual(['--redis-key-prefix', 'orrery', '--sync-period-ms', '10000', '--record-ttl-ms', '120000', '--syncables', 'endpoint-quarantine,sticky-owners']);
    // The URL (it may carry a password) only in the environment, never in argv.
    expect(r.router.env).toEqual({ ORRERY_REDIS_URL: 'redis://127.0.0.1:6379' });
  });
  it('changes the fingerprint when any setting changes, and only then', () => {
    const a = renderSettings(spec({ redis: { url: 'redis://r:6379' }, syncPeriod: '2s' }));
    const b = renderSettings(spec({ redis: { url: 'redis://r:6379' }, syncPeriod: '2s' }));
    const c = renderSettings(spec({ redis: { url: 'redis://r:6379' }, syncPeriod: '3s' }));
    expect(a.ok && b.ok && a.fingerprint === b.fingerprint).toBe(true);
    expect(a.ok && c.ok && a.fingerprint !== c.fingerprint).toBe(true);
  });
  it('switches to rediss:// when TLS is enabled', () => {
    const r = renderSettings(spec({ redis: { url: 'redis://r:6380', tls: { enabled: true } } }));
    expect(r.ok && r.settings.redisUrl).toBe('rediss://r:6380');
  });
  it('explains what is missing instead of rendering', () => {
    expect(renderSettings(spec({}))).toMatchObject({ ok: false, reason: 'RedisUrlMissing' });
    expect(renderSettings(spec({ redis: { urlSecretRef: { name: 's', key: 'url' } } }))).toMatchObject({ ok: false, message: expect.stringMatching(/Kubernetes/) as unknown });
    expect(renderSettings(spec({ redis: { url: 'http://r' } }))).toMatchObject({ ok: false, reason: 'RedisUrlInvalid' });
    expect(renderSettings(spec({ target: { component: 'statesvc' }, redis: { url: 'redis://r' } }))).toMatchObject({ ok: false, reason: 'UnsupportedTarget' });
  });
  it('names syncables the router does not register', () => {
    const r = renderSettings(spec({ redis: { url: 'redis://r' }, syncables: ['sticky-owners', 'lora-adapters'] }));
    expect(r.ok && unsupportedSyncables(r.settings)).toEqual(['lora-adapters']);
  });
  it('shows the router statesync namespaces under their StateSync names', () => {
    expect(syncableName('router-quarantine')).toBe('endpoint-quarantine');
    expect(syncableName('router-sticky-owners')).toBe('sticky-owners');
    expect(syncableName('other')).toBe('other');
  });
});

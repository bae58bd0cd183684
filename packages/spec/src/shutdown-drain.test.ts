import { describe, expect, it } from 'vitest';
import { POD_DRAIN_MS, resolveDrainMs } from './shutdown-drain.ts';

describe('resolveDrainMs', () => {
  it('defaults to a drain in a pod and none elsewhere', () => {
    expect(resolveDrainMs(undefined, { KUBERNETES_SERVICE_HOST: '10.96.0.1' })).toEqual({ ok: true, ms: POD_DRAIN_MS });
    expect(resolveDrainMs(undefined, {})).toEqual({ ok: true, ms: 0 });
    expect(resolveDrainMs(undefined, { KUBERNETES_SERVICE_HOST: '' })).toEqual({ ok: true, ms: 0 });
  });
  it('the flag wins, in a pod too', () => {
    expect(resolveDrainMs('0s', { KUBERNETES_SERVICE_HOST: '10.96.0.1' })).toEqual({ ok: true, ms: 0 });
    expect(resolveDrainMs('12s', {})).toEqual({ ok: true, ms: 12_000 });
    expect(resolveDrainMs('250ms', {})).toEqual({ ok: true, ms: 250 });
  });
  it('refuses what is not a duration, or too long', () => {
    for (const bad of ['5', 'soon', '-1s', '2m']) {
      const r = resolveDrainMs(bad, {});
      expect(r.ok, bad).toBe(false);
      expect(!r.ok && r.message).toMatch(/^--drain must be a duration from 0s to 60s/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { Instance } from '../model/instance.ts';
import { instanceJson, instancesEnvelopeJson } from './instances-answer.ts';

const instance = (id: string, extra: Partial<Instance> = {}): Instance => ({
  namespace: 'prod',
  service: 'company.shop.order.api',
  organization: 'company',
  businessDomain: 'shop',
  capabilityDomain: 'order',
  application: 'api',
  role: 'api',
  instanceId: id,
  zone: 'az1',
  labels: { tier: 'gold', 'quote"d': 'back\\slash\u2028' },
  metadata: { note: 'ünïcødé 🚀' },
  endpoints: [{ name: 'http', protocol: 'http', host: '10.0.0.1', port: 8080, weight: 100, path: '/x' }],
  leaseTtlSeconds: 30,
  lastHeartbeatAt: 1_764_000_000_123,
  revision: 42,
  createRevision: 40,
  leaseId: '694d8e1a2b3c',
  ...extra,
});

describe('instancesEnvelopeJson', () => {
  it('is byte for byte what JSON.stringify gives for the whole envelope (escapes, unicode, optional fields)', () => {
    const list = [instance('a'), instance('b', { zone: '', endpoints: [], lastHeartbeatAt: undefined }), instance('c', { labels: {} })];
    for (const instances of [list, list.slice(0, 1), []]) {
      const expected = JSON.stringify({ code: 'ok', message: '', data: { revision: 987, instances }, requestId: 'req-"1"' });
      expect(instancesEnvelopeJson('req-"1"', 987, instances)).toBe(expected);
    }
  });

  it('encodes an instance object once and reuses the text for later answers', () => {
    const a = instance('a');
    const first = instanceJson(a);
    // The index never mutates an indexed object; mutating one here shows the cached text is reused.
    a.zone = 'changed';
    expect(instanceJson(a)).toBe(first);
    expect(instanceJson(instance('a', { zone: 'changed' }))).toContain('"zone":"changed"');
  });
});

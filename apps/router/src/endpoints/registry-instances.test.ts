import { describe, expect, it } from 'vitest';
import { checkWorkerInstance, instanceToEndpoint, type RegistryInstance } from './registry-instances.ts';

const worker = (over: Partial<RegistryInstance> = {}): RegistryInstance => ({
  namespace: 'shop',
  service: 'orrery.functions.shop.counter.counter-00001',
  instanceId: 'w1',
  labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' },
  endpoints: [{ name: 'http', protocol: 'http', host: '10.0.0.7', port: 8080 }],
  ...over,
});

describe('registry instances as worker endpoints', () => {
  it('uses an instance whose namespace and labels agree with its service', () => {
    expect(instanceToEndpoint(worker())).toEqual({ namespace: 'shop', function: 'counter', revision: 'counter-00001', address: '10.0.0.7:8080', ready: true });
    expect(instanceToEndpoint(worker({ endpoints: [{ name: 'http', protocol: 'http', host: 'fd00::1', port: 80 }] }))?.address).toBe('[fd00::1]:80');
  });

  it('ignores labels that name another function or revision (a hijack of their traffic), or are missing', () => {
    const cases: Array<Record<string, string> | undefined> = [
      { 'orrery.dev/function': 'cart', 'orrery.dev/revision': 'counter-00001' },
      { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00002' },
      { 'orrery.dev/function': 'counter' },
      {},
      undefined,
    ];
    for (const labels of cases) {
      const c = checkWorkerInstance(worker({ labels }));
      expect(c.ok).toBe(false);
      expect(!c.ok && c.reason).toContain('do not match the service');
    }
  });

  it('ignores a service naming another namespace, a malformed service, other services and missing http endpoints', () => {
    expect(checkWorkerInstance(worker({ namespace: 'other' }))).toMatchObject({ ok: false, reason: expect.stringContaining('names namespace shop') });
    expect(checkWorkerInstance(worker({ service: 'orrery.functions.shop.counter' }))).toMatchObject({ ok: false });
    expect(checkWorkerInstance(worker({ service: 'company.trade.order.oc.api' }))).toMatchObject({ ok: false, reason: 'not an Orrery worker service' });
    expect(checkWorkerInstance(worker({ endpoints: [{ name: 'metrics', protocol: 'grpc', host: 'h', port: 1 }] }))).toMatchObject({ ok: false, reason: 'no http endpoint' });
  });
});

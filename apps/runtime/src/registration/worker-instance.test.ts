import { describe, expect, it } from 'vitest';
import { instanceKey, registerBody, workerServiceName, type WorkerIdentity } from './worker-instance.ts';

const w: WorkerIdentity = {
  namespace: 'shop', function: 'counter', revision: 'counter-00002', executor: 'deploy',
  instanceId: 'counter-00002-host-4100-abc123', host: '10.0.0.7', port: 4100, containerConcurrency: 4,
};

describe('worker registry identity', () => {
  it('uses the five-segment service orrery.functions.<namespace>.<function>.<revision>', () => {
    expect(workerServiceName('shop', 'counter', 'counter-00002')).toBe('orrery.functions.shop.counter.counter-00002');
  });

  it('builds the StellMap register body', () => {
    expect(registerBody(w, 30)).toEqual({
      namespace: 'shop', organization: 'orrery', businessDomain: 'functions', capabilityDomain: 'shop',
      application: 'counter', role: 'counter-00002', service: 'orrery.functions.shop.counter.counter-00002',
      instanceId: 'counter-00002-host-4100-abc123',
      labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00002', 'orrery.dev/executor': 'deploy' },
      metadata: { 'orrery.dev/container-concurrency': '4', pid: String(process.pid) },
      endpoints: [{ name: 'http', protocol: 'http', host: '10.0.0.7', port: 4100 }],
      leaseTtlSeconds: 30,
    });
  });

  it('adds the admin endpoint when the runtime routes have their own port', () => {
    expect(registerBody({ ...w, adminPort: 4101 }).endpoints).toEqual([
      { name: 'http', protocol: 'http', host: '10.0.0.7', port: 4100 },
      { name: 'admin', protocol: 'http', host: '10.0.0.7', port: 4101 },
    ]);
  });

  it('heartbeat and deregister carry the instance key and lease', () => {
    expect(instanceKey(w, 9)).toEqual({ namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00002', instanceId: w.instanceId, leaseTtlSeconds: 9 });
  });
});

import { describe, expect, it } from 'vitest';
import { EndpointIndex, type EndpointRecord } from '../admit/endpoint-index.ts';
import { RevisionQueues } from '../activator/revision-queues.ts';
import { UpstreamPools } from '../proxy/upstream-pools.ts';
import { EndpointQuarantineTable } from '../tables/endpoint-quarantine-table.ts';
import { EndpointGuard } from './endpoint-guard.ts';
import { EndpointUnion } from './endpoint-union.ts';

const rec = (address: string, revision = 'f-00001'): EndpointRecord => ({ namespace: 'ns', function: 'f', revision, address, ready: true });

function union() {
  const index = new EndpointIndex();
  const quarantine = new EndpointQuarantineTable();
  const queues = new RevisionQueues(10);
  const logged: string[] = [];
  const u = new EndpointUnion({
    index,
    quarantine,
    pools: new UpstreamPools({ connectTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000 }),
    queues,
    guard: new EndpointGuard({ platform: ['10.0.0.9:7070'], selfPorts: [], localAddresses: () => [] }),
    log: (m) => logged.push(m),
  });
  const ready = () => index.ready('ns/f-00001').map((e) => e.address);
  return { u, quarantine, queues, logged, ready };
}

describe('EndpointUnion', () => {
  it('admits the union of the file and the registry, and refuses registry endpoints on platform addresses', () => {
    const { u, logged, ready } = union();
    u.setFile([rec('10.0.0.1:80')]);
    u.setRegistry([rec('10.0.0.2:80'), rec('10.0.0.9:7070')]);
    expect(ready()).toEqual(['10.0.0.1:80', '10.0.0.2:80']);
    expect(logged.join('\n')).toContain('registry endpoint ns/f-00001 10.0.0.9:7070 not used');
    // The file is trusted (the operator writes it): the guard only checks what workers register.
    u.setFile([rec('10.0.0.9:7070')]);
    expect(ready()).toEqual(['10.0.0.2:80', '10.0.0.9:7070']);
  });

  it('keeps an address the operator answered until a listing names it, once', () => {
    const { u, ready } = union();
    u.admitAnswered(rec('10.0.0.3:80'));
    u.admitAnswered(rec('10.0.0.3:80'));
    expect(ready()).toEqual(['10.0.0.3:80']);
    u.setRegistry([rec('10.0.0.3:80')]);
    u.setRegistry([]);
    expect(ready()).toEqual([]);
  });

  it('lifts the quarantine of a changed address and lets the revision’s waiting requests go', () => {
    const { u, quarantine, queues } = union();
    quarantine.quarantine('10.0.0.4:80', Date.now() + 60_000);
    const waiter = { done: false, tries: 0, tryAdmit: () => ++waiter.tries > 0 };
    queues.of('ns/f-00001').push(waiter);
    u.setFile([rec('10.0.0.4:80')]);
    expect(quarantine.isQuarantined('10.0.0.4:80')).toBe(false);
    expect(waiter.tries).toBe(1);
    expect(queues.get('ns/f-00001')!.size).toBe(0);
  });
});

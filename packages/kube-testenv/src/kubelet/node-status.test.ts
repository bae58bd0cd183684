import { describe, expect, it } from 'vitest';
import { leaseObject, microTime, nodeObject, nodeStatus } from './node-status.ts';
import { tokenRefreshAt } from './service-account-tokens.ts';

const facts = { name: 'n1', ip: '10.245.0.1', podCIDR: '10.244.1.0/24', kubeletVersion: 'v1.37.2', machineID: 'm', bootID: 'b', kernelVersion: '6.1', osImage: 'Debian', architecture: 'amd64' };

describe('node objects', () => {
  it('registers the node with its pod range and the well-known labels', () => {
    expect(nodeObject(facts)).toMatchObject({ metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', 'kubernetes.io/os': 'linux' } }, spec: { podCIDR: '10.244.1.0/24' } });
  });

  it('reports Ready with fresh heartbeats and kept transition times', () => {
    const s = nodeStatus(facts, [{ type: 'Ready', status: 'True', lastTransitionTime: 'T0' }], 'T1') as { conditions: Array<{ type: string; status: string; lastHeartbeatTime: string; lastTransitionTime: string }>; capacity: object; nodeInfo: { kubeletVersion: string } };
    const ready = s.conditions.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'True', lastHeartbeatTime: 'T1', lastTransitionTime: 'T0' });
    expect(s.conditions.find((c) => c.type === 'MemoryPressure')).toMatchObject({ status: 'False', lastTransitionTime: 'T1' });
    expect(s.capacity).toEqual({ cpu: '2', memory: '24Gi', pods: '110' });
    expect(s.nodeInfo.kubeletVersion).toBe('v1.37.2');
  });

  it('writes the Lease with a six-digit MicroTime', () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678000Z');
    expect(leaseObject('n1', 'uid-1', 'T')).toMatchObject({ metadata: { namespace: 'kube-node-lease', ownerReferences: [{ kind: 'Node', uid: 'uid-1' }] }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: 'T' } });
  });
});

describe('tokenRefreshAt', () => {
  it('renews at 80 % of the lifetime, at the latest after 24 h', () => {
    expect(tokenRefreshAt('2026-01-01T01:00:00Z', 3600)).toBe(Date.parse('2026-01-01T00:48:00Z'));
    expect(tokenRefreshAt('2026-01-03T00:00:00Z', 48 * 3600)).toBe(Date.parse('2026-01-02T00:00:00Z'));
  });
});

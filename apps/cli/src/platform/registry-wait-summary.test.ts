import { describe, expect, it } from 'vitest';
import type { RegistryCluster } from '@orrery/spec';
import { registryWaitSummary } from './registry-wait-summary.ts';

const cluster = (status: RegistryCluster['status']): RegistryCluster =>
  ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'registry', namespace: 'default' }, spec: { replicas: 3 }, status }) as RegistryCluster;

describe('registryWaitSummary', () => {
  it('says when the operator has written nothing yet', () => {
    expect(registryWaitSummary(undefined, 120, false)).toBe('the registry was not ready within 120 s (the operator has written no status for it yet)');
    expect(registryWaitSummary(cluster(undefined), 120, false)).toBe('the registry was not ready within 120 s (the operator has written no status for it yet)');
  });

  it('names each member, the leader, the API and the conditions that are not met', () => {
    const rc = cluster({
      members: [
        { id: '1', name: 'registry-0', role: 'voter', isLeader: false, health: 'healthy' },
        { id: '2', name: 'registry-1', role: 'voter', isLeader: false, health: 'unhealthy' },
        { id: '3', name: 'registry-2', role: 'learner', isLeader: false, health: 'unknown' },
      ],
      endpoint: 'http://127.0.0.1:24000',
      conditions: [
        { type: 'Ready', status: 'False', message: 'no quorum: 1 of 3 members healthy' },
        { type: 'Progressing', status: 'True' },
      ],
    });
    expect(registryWaitSummary(rc, 120, false)).toBe(
      'the registry was not ready within 120 s (members: registry-0 healthy, registry-1 unhealthy, registry-2 unknown (learner); leader: none; ' +
        'API: http://127.0.0.1:24000 not answering; conditions: Ready=False: no quorum: 1 of 3 members healthy)',
    );
  });

  it('a leader with an API that does not answer, and no members reported', () => {
    expect(registryWaitSummary(cluster({ leader: 'registry-0', conditions: [{ type: 'Degraded', status: 'True', message: 'API down' }] }), 90, false)).toBe(
      'the registry was not ready within 90 s (members: none reported; leader: registry-0; API: not started; conditions: Degraded=True: API down)',
    );
    expect(registryWaitSummary(cluster({ leader: 'registry-0', endpoint: 'http://x', members: [{ id: '1', name: 'registry-0', role: 'voter', isLeader: true, health: 'healthy' }] }), 120, true)).toBe(
      'the registry was not ready within 120 s (members: registry-0 healthy (leader); leader: registry-0; API: http://x answers)',
    );
  });
});

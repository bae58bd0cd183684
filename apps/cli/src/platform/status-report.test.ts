import { describe, expect, it } from 'vitest';
import { emptyReport, environmentRows, functionRows, registryClusterRows, renderStatus, revisionRows, stateSyncRows } from './status-report.ts';

const meta = (name: string) => ({ name, namespace: 'default' });
const fn = (name: string, status: Record<string, unknown>) => ({ kind: 'Function', metadata: meta(name), spec: { template: {} }, status });
const ready = [{ type: 'Ready', status: 'True' }];

describe('orrery status rendering', () => {
  it('shows Ready, latest revision and traffic per function, and degraded components with their reason', () => {
    const rows = functionRows([
      fn('canary', {
        latestReadyRevision: 'canary-00002',
        traffic: [
          { revisionName: 'canary-00001', percent: 90, tag: 'stable' },
          { revisionName: 'canary-00002', percent: 10, tag: 'canary', latestRevision: true },
        ],
        conditions: ready,
      }),
      fn('broken', { conditions: [{ type: 'Ready', status: 'False', reason: 'RevisionFailed' }] }),
    ]);
    expect(rows[0]).toMatchObject({ ready: 'True', latestRevision: 'canary-00002', traffic: 'canary-00001=90%(stable) canary-00002=10%(canary)' });
    expect(rows[1]!.ready).toBe('False (RevisionFailed)');
    const text = renderStatus([{ name: 'console', state: 'Degraded', detail: 'console: not built yet' }], { ...emptyReport(), functions: rows });
    expect(text).toMatch(/console\s+Degraded\s+console: not built yet/);
    expect(text).toMatch(/default\s+canary\s+True\s+canary-00002/);
  });

  it('says when the store cannot be listed or holds no functions', () => {
    expect(renderStatus([], emptyReport(), 'connection refused')).toContain('cannot list them from the store: connection refused');
    expect(renderStatus([], emptyReport())).toContain('functions: none');
  });

  it('lists Revisions, Environments, RegistryClusters (leader, members, voters/learners) and StateSyncs with readiness', () => {
    const report = {
      ...emptyReport(),
      revisions: revisionRows([
        { kind: 'Revision', metadata: meta('counter-00001'), spec: { function: 'counter', template: {} }, status: { conditions: ready, actualScale: 1, desiredScale: 2, readyWorkers: 1 } },
        { kind: 'Revision', metadata: meta('cart-00001'), spec: { function: 'cart', template: {} } },
      ]),
      environments: environmentRows([{ kind: 'Environment', metadata: meta('nodejs'), spec: { poolSize: 3 }, status: { conditions: ready, readyPoolWorkers: 3 } }]),
      registryClusters: registryClusterRows([
        {
          kind: 'RegistryCluster',
          metadata: meta('registry'),
          spec: { replicas: 3 },
          status: {
            conditions: [{ type: 'Available', status: 'True', reason: 'QuorumHealthy' }],
            endpoint: 'http://127.0.0.1:8084',
            leader: '8e9e05c52164694d',
            members: [
              { id: '8e9e05c52164694d', name: 'registry-1', role: 'voter', isLeader: true, health: 'healthy' },
              { id: '91bc3c398fb3c146', name: 'registry-2', role: 'voter', isLeader: false, health: 'healthy' },
              { id: 'fd422379fda50e48', name: 'registry-4', role: 'learner', isLeader: false, health: 'unhealthy' },
            ],
          },
        },
      ]),
      stateSyncs: stateSyncRows([
        {
          kind: 'StateSync',
          metadata: meta('router'),
          spec: { target: { component: 'router' }, redis: {}, syncables: ['endpoint-quarantine', 'sticky-owners'] },
          status: {
            conditions: [{ type: 'Ready', status: 'False', reason: 'RedisUnreachable' }],
            replicas: [
              { replica: 'router-1', syncable: 'sticky-owners', lastSuccessfulCycle: '2026-01-01T00:00:00Z', entitiesPushed: 0, entitiesPulled: 0, backoffSeconds: 10 },
              { replica: 'router-2', syncable: 'sticky-owners', lastError: 'ECONNREFUSED', entitiesPushed: 0, entitiesPulled: 0, backoffSeconds: 10 },
            ],
          },
        },
      ]),
    };
    expect(report.revisions[0]).toEqual({ namespace: 'default', name: 'counter-00001', function: 'counter', ready: 'True', scale: '1/2', readyWorkers: 1 });
    expect(report.revisions[1]).toMatchObject({ ready: 'Unknown', scale: '0/0' });
    expect(report.registryClusters[0]).toMatchObject({ available: 'True', leader: 'registry-1', voters: 2, learners: 1 });

    const text = renderStatus([{ name: 'operator', state: 'Ready', detail: 'http://127.0.0.1:8082', pid: 42, cpuSeconds: 3.25, rssBytes: 120 * 1024 * 1024 }], report);
    expect(text).toMatch(/COMPONENT\s+STATE\s+PID\s+CPU\s+RSS\s+DETAIL/);
    expect(text).toMatch(/operator\s+Ready\s+42\s+3\.3 s\s+120 MB\s+http:\/\/127\.0\.0\.1:8082/);
    expect(text).toMatch(/default\s+counter-00001\s+counter\s+True\s+1\/2\s+1/);
    expect(text).toMatch(/default\s+nodejs\s+True\s+3\/3/);
    expect(text).toMatch(/REGISTRY CLUSTER\s+AVAILABLE\s+LEADER/);
    expect(text).toMatch(/default\s+registry\s+True\s+registry-1\s+2\s+1\s+http:\/\/127\.0\.0\.1:8084/);
    expect(text).toContain('registry members: registry-1 (voter, healthy, leader); registry-2 (voter, healthy); registry-4 (learner, unhealthy)');
    expect(text).toMatch(/default\s+router\s+False \(RedisUnreachable\)\s+router\s+endpoint-quarantine,sticky-owners/);
    expect(text).toContain('router replicas: router-1/sticky-owners: synced 2026-01-01T00:00:00Z; router-2/sticky-owners: error ECONNREFUSED');
  });
});

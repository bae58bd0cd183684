import { FunctionSchema, RevisionSchema, type Resource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { applyOutcome } from './apply-outcome.ts';
import { kindFromName, qualifiedName } from './kind-names.ts';
import { renderTable, tableColumns } from './tables.ts';

const now = new Date('2026-01-01T12:00:00Z');
const fn = (name: string, status?: Record<string, unknown>, namespace = 'default', spec: Record<string, unknown> = {}): Resource =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace, resourceVersion: '5', creationTimestamp: '2026-01-01T09:30:00Z' },
    spec: { template: { source: { inline: 'x' } }, ...spec },
    ...(status ? { status } : {}),
  });
const rev = RevisionSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Revision',
  metadata: { name: 'counter-00001', namespace: 'shop', generation: 1, creationTimestamp: '2026-01-01T11:59:55Z' },
  spec: { function: 'counter', template: { source: { inline: 'x' }, containerConcurrency: 4, executor: 'pool', autoscaling: { minScale: 1, maxScale: 5 } } },
  status: { readyWorkers: 1, desiredScale: 2, actualScale: 2, autoscalerMode: 'panic', conditions: [{ type: 'Ready', status: 'False', reason: 'WorkerCrashing', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
});

describe('orrery get tables', () => {
  it('functions: NAME READY LATEST URL TRAFFIC AGE, resolved traffic with tags', () => {
    const out = renderTable(
      [
        fn('counter', {
          latestReadyRevision: 'counter-00002',
          url: 'http://127.0.0.1:8080/default/counter',
          traffic: [{ revisionName: 'counter-00002', percent: 100 }, { revisionName: 'counter-00001', percent: 0, tag: 'old' }],
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        }),
        fn('new'),
      ],
      { showNamespace: false, now },
    );
    expect(out.split('\n')).toEqual([
      'NAME      READY     LATEST          URL                                     TRAFFIC                                   AGE',
      'counter   True      counter-00002   http://127.0.0.1:8080/default/counter   counter-00002=100%,old:counter-00001=0%   2h',
      'new       Unknown   <none>          <none>                                  latest=100%                               2h',
      '',
    ]);
  });

  it('revisions show their function, ready/desired workers and age; NAMESPACE only across namespaces', () => {
    const out = renderTable([rev], { showNamespace: true, now });
    expect(out).toContain('NAMESPACE   NAME            FUNCTION   READY                    WORKERS   GENERATION   AGE');
    expect(out).toContain('shop        counter-00001   counter    False (WorkerCrashing)   1/2       1            5s');
    expect(renderTable([], { showNamespace: false, now })).toBe('');
  });

  it('-o wide adds, after AGE, how the object runs', () => {
    expect(tableColumns(rev, { showNamespace: false, wide: true, now })).toEqual([
      'NAME', 'FUNCTION', 'READY', 'WORKERS', 'GENERATION', 'AGE', 'ENVIRONMENT', 'EXECUTOR', 'CONCURRENCY', 'SCALE', 'ACTUAL', 'MODE',
    ]);
    expect(renderTable([rev], { showNamespace: false, wide: true, now }).split('\n')[1]!.split(/\s{2,}/)).toEqual([
      'counter-00001', 'counter', 'False (WorkerCrashing)', '1/2', '1', '5s', 'nodejs', 'pool', '4', '1:5', '2', 'panic',
    ]);
    const stateful = fn('cart', undefined, 'default', { state: { keyspace: 'carts', sticky: { source: 'header', name: 'X-User' } } });
    const wide = renderTable([stateful, fn('plain')], { showNamespace: false, wide: true, now }).split('\n');
    expect(wide[0]!.split(/\s+/)).toEqual(['NAME', 'READY', 'LATEST', 'URL', 'TRAFFIC', 'AGE', 'ENVIRONMENT', 'EXECUTOR', 'CONCURRENCY', 'SCALE', 'LATEST-CREATED', 'KEYSPACE', 'STICKY']);
    expect(wide[1]!.split(/\s+/).slice(6)).toEqual(['nodejs', 'deploy', '0', '0:∞', '<none>', 'carts', 'header:X-User']);
    expect(wide[2]!.split(/\s+/).slice(-2)).toEqual(['<none>', '<none>']);
    expect(tableColumns(rev, { showNamespace: false, now })).not.toContain('EXECUTOR');
  });

  it('kind names, qualified names and apply outcomes', () => {
    expect(['functions', 'fn', 'Function', 'revs', 'environments', 'registryclusters', 'statesyncs'].map(kindFromName)).toEqual(['Function', 'Function', 'Function', 'Revision', 'Environment', 'RegistryCluster', 'StateSync']);
    expect(kindFromName('pods')).toBeUndefined();
    expect(qualifiedName('Function', 'counter')).toBe('function.orrery.dev/counter');
    const before = fn('a');
    expect(applyOutcome(undefined, before)).toBe('created');
    expect(applyOutcome(before, before)).toBe('unchanged');
    expect(applyOutcome(before, { ...before, metadata: { ...before.metadata, resourceVersion: '6' } })).toBe('configured');
  });
});

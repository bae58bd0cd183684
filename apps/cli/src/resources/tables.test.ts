import { FunctionSchema, RevisionSchema, type Resource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { applyOutcome } from './apply-outcome.ts';
import { kindFromName, qualifiedName } from './kind-names.ts';
import { renderTable } from './tables.ts';

const fn = (name: string, status?: Record<string, unknown>, namespace = 'default'): Resource =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace, resourceVersion: '5' }, spec: { template: { source: { inline: 'x' } } }, ...(status ? { status } : {}) });

describe('orrery get tables', () => {
  it('functions: NAME READY LATEST URL TRAFFIC, resolved traffic with tags', () => {
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
      { showNamespace: false },
    );
    expect(out.split('\n')).toEqual([
      'NAME      READY     LATEST          URL                                     TRAFFIC',
      'counter   True      counter-00002   http://127.0.0.1:8080/default/counter   counter-00002=100%,old:counter-00001=0%',
      'new       Unknown   <none>          <none>                                  latest=100%',
      '',
    ]);
  });

  it('revisions show their function and ready/desired workers; NAMESPACE only across namespaces', () => {
    const rev = RevisionSchema.parse({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Revision',
      metadata: { name: 'counter-00001', namespace: 'shop', generation: 1 },
      spec: { function: 'counter', template: { source: { inline: 'x' } } },
      status: { readyWorkers: 1, desiredScale: 2, conditions: [{ type: 'Ready', status: 'False', reason: 'WorkerCrashing', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    const out = renderTable([rev], { showNamespace: true });
    expect(out).toContain('NAMESPACE   NAME            FUNCTION   READY                    WORKERS   GENERATION');
    expect(out).toContain('shop        counter-00001   counter    False (WorkerCrashing)   1/2       1');
    expect(renderTable([], { showNamespace: false })).toBe('');
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

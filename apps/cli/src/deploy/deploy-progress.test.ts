import { FunctionSchema, RevisionSchema, type OrreryFunction, type Revision } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { deployProgress, progressLine } from './deploy-progress.ts';

const template = { source: { inline: 'v2' } };
const fn = (status: Record<string, unknown> | undefined, spec: Record<string, unknown> = {}): OrreryFunction =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'hello', namespace: 'default', generation: 2 }, spec: { template, ...spec }, ...(status ? { status } : {}) });
const rev = (n: number, ready?: { status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string }, code = 'v2', workers = { readyWorkers: 0, desiredScale: 1 }): Revision =>
  RevisionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `hello-0000${n}`, namespace: 'default' },
    spec: { function: 'hello', template: { source: { inline: code } } },
    ...(ready ? { status: { ...workers, conditions: [{ type: 'Ready', ...ready }] } } : {}),
  });
const observed = (more: Record<string, unknown> = {}) => ({ observedGeneration: 2, ...more });

describe('orrery deploy progress', () => {
  it('pending until the operator makes a revision of the applied template (an older revision does not count)', () => {
    expect(deployProgress(fn(undefined), [])).toEqual({ phase: 'pending', message: 'waiting for the operator to see the change' });
    expect(deployProgress(fn(observed()), [rev(1, { status: 'True' }, 'v1')]).phase).toBe('pending');
  });

  it('created → starting (workers n/m) → routes updating → ready with URL, percent and tags', () => {
    expect(deployProgress(fn(observed()), [rev(1, { status: 'True' }, 'v1'), rev(2)])).toEqual({ phase: 'created', revision: 'hello-00002' });
    const starting = deployProgress(fn(observed()), [rev(2, { status: 'Unknown', reason: 'Deploying', message: 'starting workers: 0/1 ready' })]);
    expect(starting).toEqual({ phase: 'starting', revision: 'hello-00002', message: '0/1 workers ready (starting workers: 0/1 ready)' });
    const readyRev = rev(2, { status: 'True', reason: 'WorkersReady' }, 'v2', { readyWorkers: 1, desiredScale: 1 });
    expect(deployProgress(fn(observed({ latestReadyRevision: 'hello-00001' })), [readyRev])).toMatchObject({ phase: 'starting', message: 'workers ready; updating routes' });
    expect(deployProgress(fn({ observedGeneration: 1, latestReadyRevision: 'hello-00002' }), [readyRev]).phase).toBe('starting');
    const done = deployProgress(
      fn(observed({ latestReadyRevision: 'hello-00002', url: 'http://r/default/hello', traffic: [{ revisionName: 'hello-00002', percent: 90 }, { revisionName: 'hello-00002', percent: 10, tag: 'next' }] })),
      [readyRev],
    );
    expect(done).toEqual({ phase: 'ready', revision: 'hello-00002', url: 'http://r/default/hello', servedPercent: 100, tags: ['next'] });
    expect(progressLine(done)).toBe('revision hello-00002 ready, serving 100% of traffic (tags: next)');
  });

  it('fails with the reason and message the operator wrote, on the revision or (no revision made) on the function', () => {
    const crash = deployProgress(fn(observed()), [rev(2, { status: 'False', reason: 'WorkerCrashing', message: 'workers keep exiting (3 restarts): SyntaxError' })]);
    expect(crash).toEqual({ phase: 'failed', revision: 'hello-00002', reason: 'WorkerCrashing', message: 'workers keep exiting (3 restarts): SyntaxError' });
    expect(progressLine(crash)).toBe('revision hello-00002 failed: WorkerCrashing — workers keep exiting (3 restarts): SyntaxError');
    const blocked = deployProgress(fn(observed({ conditions: [{ type: 'ConfigurationsReady', status: 'False', reason: 'KeyspaceTaken', message: 'spec.template is not rolled out: keyspace carts belongs to cart' }] })), []);
    expect(blocked).toEqual({ phase: 'failed', reason: 'KeyspaceTaken', message: 'spec.template is not rolled out: keyspace carts belongs to cart' });
    // Before the operator saw this generation, an old False condition is not this deploy's.
    expect(deployProgress(fn({ observedGeneration: 1, conditions: [{ type: 'ConfigurationsReady', status: 'False', reason: 'Old' }] }), []).phase).toBe('pending');
  });

  it('a revision that spec.traffic never routes to is reported as such, not waited for', () => {
    const pinned = { traffic: [{ revisionName: 'hello-00001', percent: 100 }] };
    const inactive = rev(2, { status: 'Unknown', reason: 'Inactive', message: 'not routable' }, 'v2', { readyWorkers: 0, desiredScale: 0 });
    const p = deployProgress(fn(observed(), pinned), [inactive]);
    expect(p).toEqual({ phase: 'unrouted', revision: 'hello-00002', message: 'spec.traffic sends it nothing; route to it with: orrery traffic set default/hello hello-00002=100' });
    // With latestRevision in the traffic, Inactive is only a moment before the operator scales it up.
    expect(deployProgress(fn(observed()), [inactive]).phase).toBe('starting');
  });
});

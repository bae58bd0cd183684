import { describe, expect, it } from 'vitest';
import { RevisionSchema, type Revision } from '@orrery/spec';
import type { RevisionWorkers } from './revision-workers.ts';
import { revisionStatus } from './revision-status.ts';

const now = new Date('2026-12-02T06:00:00Z');

function rev(ready?: 'True' | 'Unknown' | 'False'): Revision {
  return RevisionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: 'canary-00002', namespace: 'default', generation: 1 },
    spec: { function: 'canary', template: { source: { inline: 'x' } } },
    ...(ready ? { status: { conditions: [{ type: 'Ready', status: ready, reason: 'x', message: 'x', lastTransitionTime: '2026-12-02T05:00:00Z' }] } } : {}),
  });
}
const workers = (w: Partial<RevisionWorkers>): RevisionWorkers => ({ desired: 1, actual: 1, ready: 0, restarts: 0, ...w });
const ready = (r: Revision, w: Partial<RevisionWorkers>) => revisionStatus(r, workers(w), now).conditions?.find((c) => c.type === 'Ready');

describe('revisionStatus Ready', () => {
  it('a revision that was ready stays Ready while it wakes from zero or a worker is replaced', () => {
    expect(ready(rev('True'), { desired: 1, ready: 0 })).toMatchObject({ status: 'True', reason: 'Activating', message: 'starting workers: 0/1 ready' });
    expect(ready(rev('True'), { desired: 0, actual: 0, ready: 0 })).toMatchObject({ status: 'True', reason: 'ScaledToZero' });
  });
  it('a revision never ready is Deploying (Unknown) until a worker is ready', () => {
    expect(ready(rev(), { desired: 1, ready: 0 })).toMatchObject({ status: 'Unknown', reason: 'Deploying' });
    expect(ready(rev('Unknown'), { desired: 1, ready: 1 })).toMatchObject({ status: 'True', reason: 'WorkersReady' });
  });
  it('a failure takes Ready away from a revision that was ready', () => {
    expect(ready(rev('True'), { desired: 1, ready: 0, crashLoop: 'exit 1', restarts: 5 })).toMatchObject({ status: 'False', reason: 'WorkerCrashing' });
    expect(ready(rev('True'), { desired: 1, ready: 0, failed: { reason: 'ProgressDeadlineExceeded', message: 'no progress' } })).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });
});

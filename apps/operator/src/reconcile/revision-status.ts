import type { Revision, RevisionStatus } from '@orrery/spec';
import type { RevisionWorkers } from './revision-workers.ts';
import { conditionTrue, setCondition } from './conditions.ts';
import { withReadyProgress } from './kstatus-conditions.ts';

/**
 * Revision status from what the backend observes. A revision that was ready stays Ready when it
 * is scaled to zero on purpose and while it wakes up again (Knative: readiness means "can
 * serve", not "is serving"); only a failure takes it away.
 */
export function revisionStatus(
  rev: Revision,
  workers: RevisionWorkers,
  now: Date,
  unsupported?: { reason: string; message: string },
): RevisionStatus {
  const prev = rev.status;
  let conditions = prev?.conditions;
  if (unsupported) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', ...unsupported }, now);
  } else if (workers.configError && workers.ready === 0) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'SecretMissing', message: `no worker can start: ${workers.configError}` }, now);
  } else if (workers.crashLoop) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'WorkerCrashing', message: `workers keep exiting (${workers.restarts} restarts): ${workers.crashLoop}` }, now);
  } else if (workers.failed && workers.ready === 0) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', ...workers.failed }, now);
  } else if (workers.ready > 0) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'WorkersReady', message: `${workers.ready}/${workers.desired} workers ready` }, now);
  } else if (workers.desired > 0 && conditionTrue(prev?.conditions, 'Ready')) {
    // Waking from zero, or a worker replaced: still able to serve (the request waits in the
    // activator). Going Unknown here would make the Function's latestRevision fall back to an
    // older revision, and its traffic share and tag would leak there while this one starts.
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Activating', message: `starting workers: ${workers.ready}/${workers.desired} ready` }, now);
  } else if (workers.desired === 0 && conditionTrue(prev?.conditions, 'Ready')) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'ScaledToZero', message: 'no workers wanted; the next request starts one' }, now);
  } else if (workers.desired === 0) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'Unknown', reason: 'Inactive', message: 'not routable: no traffic target references this revision' }, now);
  } else {
    conditions = setCondition(conditions, { type: 'Ready', status: 'Unknown', reason: 'Deploying', message: `starting workers: ${workers.ready}/${workers.desired} ready` }, now);
  }
  return {
    ...prev,
    observedGeneration: rev.metadata.generation,
    desiredScale: workers.desired,
    actualScale: workers.actual,
    readyWorkers: workers.ready,
    // Ready=False here is always terminal (unsupported, missing secret, crashing): kstatus Stalled.
    conditions: withReadyProgress(conditions, now),
  };
}

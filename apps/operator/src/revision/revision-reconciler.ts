/**
 * The Revision reconciler of both backends, over a RevisionBackend (revision-backend.ts): runs the
 * workers a revision should have (none unless traffic reaches it or it is its Function's newest;
 * as many as the KPA decides), and writes its status and Events. Level-triggered: each call reads
 * the current state and converges, so missed or repeated events are harmless.
 */
import { GROUP_VERSION, type OrreryFunction, type Revision, type StateCredentials } from '@orrery/spec';
import type { KpaDecision } from '../autoscaler/kpa-decider.ts';
import { type EventRecorder, eventTarget } from '../events/event-recorder.ts';
import { revisionWanted } from '../function/revision-wanted.ts';
import { splitKey } from '../queue/object-key.ts';
import { setCondition } from '../reconcile/conditions.ts';
import { withReadyProgress } from '../reconcile/kstatus-conditions.ts';
import { revisionStatus } from '../reconcile/revision-status.ts';
import type { RevisionWorkers } from '../reconcile/revision-workers.ts';
import { statusChanged } from '../reconcile/status-changed.ts';
import { revisionEvents } from '../reconcile/status-events.ts';
import type { ReadyOverride, RevisionBackend } from './revision-backend.ts';

/** The KPA as the reconciler uses it (autoscaler/autoscaler.ts). */
export interface RevisionScaler {
  desired(key: string, rev: Revision, reachable: boolean): KpaDecision;
  forget(key: string): void;
}

export interface RevisionReconcilerOptions {
  backend: RevisionBackend;
  /** Absent (local without `--autoscaler`): a running revision has max(1, minScale) workers. */
  autoscaler?: RevisionScaler;
  events?: EventRecorder;
  now: () => Date;
}

export class RevisionReconciler {
  constructor(private readonly o: RevisionReconcilerOptions) {}

  async reconcile(key: string): Promise<void> {
    const b = this.o.backend;
    const [namespace, name] = splitKey(key);
    const rev = await b.revision(namespace, name);
    const fn = rev && (await b.owner(rev));
    if (!rev || !fn) {
      this.o.autoscaler?.forget(key);
      return b.release(namespace, name);
    }
    const credentials = b.credentials(fn);
    const unsupported = b.unsupported?.(rev);
    const { workers, ready, decision } = unsupported
      ? { workers: await this.stopped(key, rev, credentials), ready: undefined, decision: undefined }
      : await this.run(key, fn, rev, credentials);

    let status = revisionStatus(rev, workers, this.o.now(), unsupported);
    if (ready) status.conditions = withReadyProgress(setCondition(status.conditions, { type: 'Ready', ...ready }, this.o.now()), this.o.now());
    status = b.settle?.(key, status) ?? status;
    if (decision) {
      status.autoscalerMode = decision.mode;
      status.lastDecision = decision.reason;
    }
    if (!statusChanged(status, rev.status)) return;
    const before = await b.writeStatus(rev, status);
    this.o.events?.record(eventTarget(GROUP_VERSION, 'Revision', rev), ...revisionEvents(before, status, decision?.reason));
  }

  private async stopped(key: string, rev: Revision, credentials: StateCredentials | undefined): Promise<RevisionWorkers> {
    this.o.autoscaler?.forget(key);
    return this.o.backend.runWorkers(rev, 0, credentials);
  }

  private async run(
    key: string,
    fn: OrreryFunction,
    rev: Revision,
    credentials: StateCredentials | undefined,
  ): Promise<{ workers: RevisionWorkers; ready?: ReadyOverride; decision?: KpaDecision }> {
    const b = this.o.backend;
    await b.prepare?.(fn, rev, credentials);
    const { routable, wanted } = revisionWanted(fn, await b.revisionsOf(rev.metadata.namespace, fn.metadata.name), rev.metadata.name);
    // The KPA decides (initial scale, min/max, scale to zero); revisions nobody can reach run nothing.
    const decision = wanted ? this.o.autoscaler?.desired(key, rev, routable) : undefined;
    if (!decision) this.o.autoscaler?.forget(key);
    if (rev.spec.template.executor === 'pool' && b.pool) {
      if (wanted) b.pool.keep(rev, decision?.desired, credentials);
      else await b.pool.release(key);
      return { ...(await b.pool.observe(rev, wanted, decision?.desired ?? 0)), decision };
    }
    const fixed = wanted && !this.o.autoscaler ? Math.max(1, rev.spec.template.autoscaling.minScale ?? 1) : 0;
    return { workers: await b.runWorkers(rev, decision?.desired ?? fixed, credentials), decision };
  }
}

/**
 * The Function reconciler of both backends, over a FunctionBackend (function-backend.ts): creates
 * the next immutable Revision when spec.template changed (and nothing blocks it: a cross-object
 * rule, a keyspace another Function owns), writes status and its Events, and cleans up the
 * keyspace of a Function deleted with `spec.state.onDelete: delete`. Level-triggered: each call
 * reads the current state and converges, so missed or repeated events are harmless.
 */
import { GROUP_VERSION, type DomainStatus, type FunctionStatus, type OrreryFunction, type Revision, declaredKeyspace, effectiveOnDelete } from '@orrery/spec';
import { type EventRecorder, eventTarget } from '../events/event-recorder.ts';
import { keyspaceCleanup } from '../keyspace/keyspace-cleanup.ts';
import { objectKey, splitKey } from '../queue/object-key.ts';
import { crossObjectProblem, keyspaceProblem } from '../reconcile/cross-object-rules.ts';
import { revisionToCreate } from '../reconcile/function-revisions.ts';
import { DEFAULT_REVISION_GC, planRevisionCollection, revisionGcSettings, type RevisionGcSettings } from './revision-collection.ts';
import { functionStatus } from '../reconcile/function-status.ts';
import { statusChanged } from '../reconcile/status-changed.ts';
import { functionEvents } from '../reconcile/status-events.ts';
import { type FunctionBackend, KEYSPACE_FINALIZER, type KeyspaceFinalizer, type StoredFunction } from './function-backend.ts';

export interface FunctionReconcilerOptions {
  backend: FunctionBackend;
  routerUrl?: string;
  /**
   * Deletes a keyspace's data (statesvc's signed admin call) for a Function deleted with
   * `spec.state.onDelete: delete`; absent = keyspace data is always retained.
   */
  deleteKeyspace?: (namespace: string, keyspace: string) => Promise<unknown>;
  /** The Function's Revisions are reconciled after it (their scale follows its traffic). */
  revisionChanged: (key: string) => void;
  events?: EventRecorder;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  now: () => Date;
  /** Revision garbage collection where a Function's `spec.revisionGC` says nothing (`--revision-gc-keep`, `--revision-gc-min-age`). */
  revisionGc?: RevisionGcSettings;
  /** status.domains, decided cluster-wide by the domain reconciler (domain/domain-reconciler.ts); absent = none written. */
  domains?: (fn: OrreryFunction) => DomainStatus[] | undefined;
}

export class FunctionReconciler {
  constructor(private readonly o: FunctionReconcilerOptions) {}

  async reconcile(key: string): Promise<void> {
    const b = this.o.backend;
    const [namespace, name] = splitKey(key);
    const read = await b.read(namespace, name);
    if (!read) return b.gone(namespace, name);
    const { fn, stored } = read;
    if (!fn) {
      this.o.log(`function ${key} does not parse; the admission webhook should have refused it`);
      return;
    }
    if (b.finalizer && !(await this.keepFinalizer(key, fn, stored, b.finalizer))) return;

    let revisions = await b.revisionsOf(namespace, name);
    // Admission checked the Environment; it may have changed since.
    let blocked =
      crossObjectProblem(fn, await b.environment(namespace, fn.spec.template.environment)) ??
      (fn.spec.state ? keyspaceProblem(fn, await b.functions(namespace)) : undefined);
    let create = blocked ? undefined : revisionToCreate(fn, revisions);
    if (create && fn.spec.state && b.liveFunctions) {
      // One keyspace, one owner (S1): a new revision (and a token with it) only once fresh reads
      // confirm the keyspace is this one's: a cache may not show yet an owner admitted meanwhile.
      blocked = keyspaceProblem(fn, await b.liveFunctions(namespace));
      if (blocked) create = undefined;
    }
    if (create) {
      const created = await b.createRevision(create);
      this.o.log(`created revision ${namespace}/${create.metadata.name}`);
      if (created) revisions = [...revisions, created];
    }
    let status = functionStatus({ fn, revisions, routerUrl: this.o.routerUrl, now: this.o.now(), blocked });
    const domains = this.o.domains?.(fn);
    if (domains?.length) status.domains = domains;
    if (b.settle) status = b.settle(key, status);
    // status.triggers is the triggers' own record (trigger/trigger-status-store.ts), status.build the
    // package builder's: never computed here.
    const { triggers: _triggers, build: _build, ...ownStored } = fn.status ?? {};
    if (statusChanged(status, fn.status ? ownStored : undefined)) {
      const before = await b.writeStatus(fn, status);
      this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', stored), ...functionEvents(before, status, { blocked, keyspace: declaredKeyspace(stored)?.keyspace }));
    }
    revisions = await this.collectRevisions(fn, stored, status, revisions);
    for (const r of revisions) this.o.revisionChanged(objectKey(namespace, r.metadata.name));
  }

  /**
   * Deletes the revisions garbage collection no longer keeps (revision-collection.ts), judged on
   * the status just computed, so a revision traffic moved to in this pass is never collected.
   * Returns the revisions left.
   */
  private async collectRevisions(fn: OrreryFunction, stored: StoredFunction, status: FunctionStatus, revisions: Revision[]): Promise<Revision[]> {
    const settings = revisionGcSettings(fn, this.o.revisionGc ?? DEFAULT_REVISION_GC);
    const plan = planRevisionCollection({ spec: fn.spec, status }, revisions, settings, this.o.now().getTime());
    if (plan.collect.length === 0) return revisions;
    const { namespace, name } = fn.metadata;
    const gone = new Set<string>();
    for (const c of plan.collect) {
      await this.o.backend.deleteRevision(namespace, c.name);
      gone.add(c.name);
      this.o.log(`collected revision ${namespace}/${c.name} of ${name}`, { namespace, function: name, revision: c.name, ageSeconds: Math.round(c.ageMs / 1000) });
    }
    const names = plan.collect.map((c) => c.name);
    this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', stored), {
      reason: 'RevisionCollected',
      message: `deleted ${names.length} old revision(s) no traffic names (keeping ${settings.keep} non-routed, none younger than ${Math.round(settings.minAgeMs / 60_000)} min): ${names.join(', ')}`,
    });
    return revisions.filter((r) => !gone.has(r.metadata.name));
  }

  /**
   * The keyspace of a deleted Function, per its policy (keyspaceCleanup: `onDelete: delete`, and
   * no Function in `others` declares the keyspace). A statesvc failure throws: the caller's queue
   * retries with backoff.
   */
  async releaseKeyspace(key: string, deleted: unknown, others: readonly unknown[]): Promise<void> {
    if (!this.o.deleteKeyspace) return;
    const cleanup = keyspaceCleanup(deleted, others);
    if (cleanup.action === 'delete') {
      const deletedKeys = await this.o.deleteKeyspace(cleanup.namespace, cleanup.keyspace);
      this.o.log(`deleted keyspace ${cleanup.keyspace} of ${key}`, { namespace: cleanup.namespace, keyspace: cleanup.keyspace, keys: deletedKeys });
    } else if (cleanup.why === 'held') {
      this.o.log(`function ${key}: keyspace ${cleanup.keyspace} retained: Function ${cleanup.namespace}/${cleanup.holder} declares it too`);
    }
  }

  private freshFunctions(namespace: string): Promise<readonly unknown[]> {
    const b = this.o.backend;
    return b.liveFunctions ? b.liveFunctions(namespace) : b.functions(namespace);
  }

  /**
   * The finalizer only where there is external cleanup to do (and a way to do it); on deletion,
   * the cleanup and then the finalizer's removal. False: the Function is being deleted.
   */
  private async keepFinalizer(key: string, fn: OrreryFunction, stored: StoredFunction, finalizer: KeyspaceFinalizer): Promise<boolean> {
    const { namespace, name } = stored.metadata;
    const holds = (stored.metadata.finalizers ?? []).includes(KEYSPACE_FINALIZER);
    if (stored.metadata.deletionTimestamp) {
      if (!holds) return false;
      // A cache can lag behind our own finalizer removal: a second queued reconcile would run
      // the cleanup again. The fresh copy says whether it is still owed.
      const live = await finalizer.live(namespace, name);
      if (!live?.metadata.finalizers?.includes(KEYSPACE_FINALIZER)) return false;
      // Judged on fresh reads: a keyspace another Function still declares is never wiped.
      if (this.o.deleteKeyspace) await this.releaseKeyspace(key, live, await this.freshFunctions(namespace));
      await finalizer.set(namespace, name, false);
      return false;
    }
    // spec.state.onDelete, else the deprecated annotation, else retain.
    const policy = effectiveOnDelete({ metadata: stored.metadata, spec: fn.spec });
    const wants = policy === 'delete' && fn.spec.state !== undefined && this.o.deleteKeyspace !== undefined;
    if (policy === 'delete' && fn.spec.state && !this.o.deleteKeyspace) this.o.log(`function ${key}: keyspace deletion policy "delete" needs a keyspace cleanup hook; data will be retained`);
    if (wants !== holds) await finalizer.set(namespace, name, wants);
    return true;
  }
}

/**
 * Revisions on the local backend (revision/revision-backend.ts): read from the resource store, run
 * as `orrery-runtime` child processes (local-backend.ts) or, for the pool executor, by the local
 * pool executor's specialized workers.
 */
import { type OrreryFunction, type Revision, type RevisionStatus, type StateCredentials } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { FunctionBackend } from '../../function/function-backend.ts';
import { objectKey } from '../../queue/object-key.ts';
import type { RevisionWorkers } from '../../reconcile/revision-workers.ts';
import type { ReadyOverride, RevisionBackend, RevisionPool } from '../../revision/revision-backend.ts';
import type { LocalBackend } from './local-backend.ts';
import type { LocalObjectCache } from './local-object-cache.ts';

/** The local pool executor as the operator drives it (local-pool-executor.ts; absent: no pool). */
export interface LocalRevisionPool {
  keepWarm(rev: Revision): void;
  release(key: string): Promise<void>;
  readyWorkers?(namespace: string, environment: string): number;
  /** The KPA's desired scale for a pooled revision (specializes more warm workers under load). */
  scale?(rev: Revision, desired: number, credentials?: StateCredentials): void;
  /** Why this Environment's workers cannot run here (its image has no local runtime), if they cannot. */
  runtimeProblem?(namespace: string, environment: string): Promise<{ reason: string; message: string } | undefined>;
}

const CONTAINER_UNSUPPORTED: ReadyOverride = {
  status: 'False',
  reason: 'ExecutorUnsupported',
  message: 'the container executor needs the Kubernetes backend; use executor deploy or pool locally',
};

const SERVED_BY_POOL: ReadyOverride = { status: 'True', reason: 'PoolExecutor', message: 'served by specialized pool workers on demand' };

export interface LocalRevisionBackendOptions {
  store: ResourceStore;
  /** The operator's informer cache (absent: every read goes to the store); a miss is confirmed by the store. */
  cache?: LocalObjectCache;
  /** Where a Function and its Revisions are read (the Function reconciler's backend: cache, a miss confirmed by the store). */
  functions: Pick<FunctionBackend, 'read' | 'revisionsOf'>;
  workers: LocalBackend;
  pool?: LocalRevisionPool;
  /** The Function's state token, judged on every Function the operator knows. */
  credentials: (fn: OrreryFunction) => StateCredentials | undefined;
  /** Package builds (docs/packages.md): a revision whose package is not built runs no workers. */
  packageGate?: (rev: Revision) => ReadyOverride | undefined;
}

export class LocalRevisionBackend implements RevisionBackend {
  readonly pool?: RevisionPool;

  constructor(private readonly o: LocalRevisionBackendOptions) {
    const pool = o.pool;
    if (pool) {
      this.pool = {
        keep: (rev, desired, credentials) => {
          pool.keepWarm(rev);
          if (desired !== undefined) pool.scale?.(rev, desired, credentials);
        },
        release: (key) => pool.release(key),
        // Pool revisions are Ready whenever the pool can specialize a worker for them.
        observe: async (rev) => {
          const problem = await pool.runtimeProblem?.(rev.metadata.namespace, rev.spec.template.environment);
          return { workers: await this.runWorkers(rev, 0, undefined), ready: problem ? { status: 'False', ...problem } : SERVED_BY_POOL };
        },
      };
    }
  }

  // A miss stops the revision's workers (release): it is read again from the store first (the owner too).
  async revision(namespace: string, name: string): Promise<Revision | undefined> {
    const cached = this.o.cache?.listed('Revision') ? this.o.cache.get<Revision>('Revision', namespace, name) : undefined;
    return cached ?? ((await this.o.store.get('Revision', namespace, name)) as Revision | undefined);
  }

  async owner(rev: Revision): Promise<OrreryFunction | undefined> {
    return (await this.o.functions.read(rev.metadata.namespace, rev.spec.function))?.fn;
  }

  revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    return this.o.functions.revisionsOf(namespace, fn);
  }

  async release(namespace: string, name: string): Promise<void> {
    await this.o.pool?.release(objectKey(namespace, name));
    await this.o.workers.scale({ metadata: { namespace, name } } as Revision, 0);
  }

  unsupported(rev: Revision): ReadyOverride | undefined {
    return rev.spec.template.executor === 'container' ? CONTAINER_UNSUPPORTED : this.o.packageGate?.(rev);
  }

  credentials(fn: OrreryFunction): StateCredentials | undefined {
    return this.o.credentials(fn);
  }

  async runWorkers(rev: Revision, desired: number, credentials: StateCredentials | undefined): Promise<RevisionWorkers> {
    await this.o.workers.scale(rev, desired, credentials);
    return this.o.workers.observe(rev.metadata.namespace, rev.metadata.name);
  }

  async writeStatus(rev: Revision, status: RevisionStatus): Promise<RevisionStatus | undefined> {
    const written = await this.o.store.updateStatus('Revision', rev.metadata.namespace, rev.metadata.name, status);
    this.o.cache?.wrote('Revision', written);
    return rev.status;
  }
}

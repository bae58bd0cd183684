/**
 * Which reconciles a change starts, on both backends: a Function, Revision or Environment event
 * only enqueues keys (local: store watches, backends/local/local-function-operator.ts; Kubernetes:
 * informers, backends/kubernetes/kube-function-operator.ts). Each reconcile then reads the current
 * state, so an extra key costs one idle reconcile and a missing one waits for the next resync.
 */
import { objectKey } from '../queue/object-key.ts';
import { keyspaceNeighbours } from '../reconcile/keyspace-neighbours.ts';

interface Queue {
  add(key: string): void;
}

export interface FunctionFamilyQueues {
  functions: Queue;
  revisions: Queue;
  environments: Queue;
}

interface Stored {
  metadata: { namespace?: string; name: string };
  spec?: unknown;
}

const keyOf = (o: Stored) => objectKey(o.metadata.namespace ?? 'default', o.metadata.name);

export class FunctionFamilyEvents {
  /** Each Function as its last event showed it: the keyspace it held before a change. */
  private readonly lastSeen = new Map<string, Stored>();

  /** `functions`: every Function the operator knows now (a cache), judged for neighbours and Environments. */
  constructor(
    private readonly queues: FunctionFamilyQueues,
    private readonly functions: () => Iterable<unknown>,
  ) {}

  functionChanged(fn: Stored, deleted: boolean): void {
    const key = keyOf(fn);
    const before = this.lastSeen.get(key);
    if (deleted) this.lastSeen.delete(key);
    else this.lastSeen.set(key, fn);
    this.queues.functions.add(key);
    // One keyspace, one owner: the others declaring the keyspace it held or now declares may
    // have to wait for it or may proceed now (its deletion, its move to another keyspace).
    for (const k of keyspaceNeighbours(before ? [before, fn] : [fn], this.functions())) this.queues.functions.add(k);
  }

  /** Its Function's status (latest ready, traffic) follows the revision's. */
  revisionChanged(rev: Stored): void {
    this.queues.revisions.add(keyOf(rev));
    const fn = (rev.spec as { function?: unknown } | undefined)?.function;
    if (typeof fn === 'string') this.queues.functions.add(objectKey(rev.metadata.namespace ?? 'default', fn));
  }

  /** Functions on it: a rule that reads the Environment may now hold or fail for them. */
  environmentChanged(env: Stored): void {
    this.queues.environments.add(keyOf(env));
    const namespace = env.metadata.namespace ?? 'default';
    for (const f of this.functions() as Iterable<Stored>) {
      const on = (f.spec as { template?: { environment?: unknown } } | undefined)?.template?.environment;
      if ((f.metadata.namespace ?? 'default') === namespace && on === env.metadata.name) this.queues.functions.add(keyOf(f));
    }
  }
}

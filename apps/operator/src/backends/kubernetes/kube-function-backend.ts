/**
 * Functions on Kubernetes (function/function-backend.ts): reads from the informer caches (no
 * API-server round trip per reconcile), with fresh API-server reads where a lagging cache must not
 * decide (a keyspace's owner, a finalizer still owed); writes by server-side apply. Revisions go
 * with their Function through garbage collection (owner references).
 */
import {
  EnvironmentSchema,
  FUNCTION_LABEL,
  FunctionSchema,
  GROUP_VERSION,
  type Environment,
  type FunctionStatus,
  type OrreryFunction,
  type Revision,
  type RevisionInput,
  RevisionSchema,
} from '@orrery/spec';
import { type FunctionBackend, type FunctionRead, KEYSPACE_FINALIZER, type KeyspaceFinalizer, type StoredFunction } from '../../function/function-backend.ts';
import { objectKey } from '../../queue/object-key.ts';
import type { Informer } from './informer.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { parsed } from './parsed-object.ts';
import { WrittenStatus } from './written-status.ts';

export interface KubeFunctionBackendOptions {
  client: KubeClient;
  functions: Informer;
  revisions: Informer;
  environments: Informer;
  /** Reconciled=True once a failure this process recorded is resolved (reconcile-failure.ts). */
  settle: (key: string, status: FunctionStatus) => FunctionStatus;
}

export class KubeFunctionBackend implements FunctionBackend {
  private readonly written = new WrittenStatus<FunctionStatus>();
  readonly finalizer: KeyspaceFinalizer;

  constructor(private readonly o: KubeFunctionBackendOptions) {
    this.finalizer = {
      live: async (namespace, name) => (await o.client.get(GROUP_VERSION, 'Function', namespace, name)) as StoredFunction | undefined,
      set: (namespace, name, present) =>
        o.client.update(GROUP_VERSION, 'Function', namespace, name, (obj) => {
          const list = obj.metadata.finalizers ?? [];
          if (list.includes(KEYSPACE_FINALIZER) === present) return undefined;
          obj.metadata.finalizers = present ? [...list, KEYSPACE_FINALIZER] : list.filter((f) => f !== KEYSPACE_FINALIZER);
          return obj;
        }).then(() => {}),
    };
  }

  async read(namespace: string, name: string): Promise<FunctionRead | undefined> {
    const raw = this.o.functions.get(namespace, name);
    return raw && { fn: parsed<OrreryFunction>(FunctionSchema, raw), stored: raw as StoredFunction };
  }

  async gone(namespace: string, name: string): Promise<void> {
    this.written.forget(objectKey(namespace, name));
  }

  async revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    return this.o.revisions
      .list()
      .filter((r) => r.metadata.namespace === namespace && r.metadata.labels?.[FUNCTION_LABEL] === fn)
      .map((r) => parsed<Revision>(RevisionSchema, r))
      .filter((r): r is Revision => r !== undefined);
  }

  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    return parsed<Environment>(EnvironmentSchema, this.o.environments.get(namespace, name));
  }

  /** The informer's Functions (every watched namespace: keyspaceProblem picks the namespace). */
  async functions(): Promise<readonly unknown[]> {
    return this.o.functions.list();
  }

  async liveFunctions(namespace: string): Promise<readonly unknown[]> {
    return (await this.o.client.list(GROUP_VERSION, 'Function', namespace)).items;
  }

  async createRevision(rev: RevisionInput): Promise<Revision | undefined> {
    return parsed<Revision>(RevisionSchema, await this.o.client.apply(rev as unknown as KubeObject));
  }

  /** Its Deployment, Service and Secret carry the Revision as owner: Kubernetes' garbage collector removes them. */
  async deleteRevision(namespace: string, name: string): Promise<void> {
    await this.o.client.delete(GROUP_VERSION, 'Revision', namespace, name);
  }

  settle(key: string, status: FunctionStatus): FunctionStatus {
    return this.o.settle(key, status);
  }

  /**
   * `status.triggers` and `status.build` are left out of the apply: the triggers and the package
   * builds own them under their own field managers (trigger/trigger-status-store.ts,
   * package-build/kube-package-builds.ts), and a copy from the informer's cache could be older.
   */
  writeStatus(fn: OrreryFunction, status: FunctionStatus): Promise<FunctionStatus | undefined> {
    const { namespace, name } = fn.metadata;
    const { triggers: _owned, build: _built, ...own } = status;
    return this.written.write(objectKey(namespace, name), fn.status, status, () => this.o.client.applyStatus('Function', namespace, name, own));
  }
}

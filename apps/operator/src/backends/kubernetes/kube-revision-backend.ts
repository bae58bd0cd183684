/**
 * Revisions on Kubernetes (revision/revision-backend.ts): read from the informer caches; a deploy
 * revision runs as a Deployment (rendered with its Service, ConfigMap and Secrets by
 * render/revision-children.ts, applied server-side), a pool revision on specialized pool pods
 * (kube-pool-executor.ts). Children carry owner references: a deleted revision's go with it.
 */
import { FunctionSchema, type OrreryFunction, type Revision, RevisionSchema, type RevisionStatus, type StateCredentials, EnvironmentSchema, type Environment } from '@orrery/spec';
import type { FunctionBackend } from '../../function/function-backend.ts';
import { objectKey } from '../../queue/object-key.ts';
import { conditionTrue } from '../../reconcile/conditions.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';
import type { RevisionWorkers } from '../../reconcile/revision-workers.ts';
import type { ReadyOverride, RevisionBackend, RevisionPool } from '../../revision/revision-backend.ts';
import { deploymentFailure } from './deployment-failure.ts';
import type { Informer } from './informer.ts';
import { type KubeClient, isNotFound } from './kube-client.ts';
import type { KubernetesPoolExecutor } from './kube-pool-executor.ts';
import { parsed } from './parsed-object.ts';
import { childName } from './render/labels.ts';
import { renderRevisionChildren, renderServiceAccount } from './render/revision-children.ts';
import { WrittenStatus } from './written-status.ts';

export interface KubeRevisionBackendOptions {
  client: KubeClient;
  functions: Informer;
  revisions: Informer;
  environments: Informer;
  deployments: Informer;
  /** Where a Function's Revisions are listed (the Function reconciler's backend). */
  functionBackend: Pick<FunctionBackend, 'revisionsOf'>;
  pool: KubernetesPoolExecutor;
  /** The Function's state token, judged on the informer's Functions (kube-function-operator.ts). */
  credentials: (fn: OrreryFunction) => StateCredentials | undefined;
  /** Reconciled=True once a failure this process recorded is resolved (reconcile-failure.ts). */
  settle: (key: string, status: RevisionStatus) => RevisionStatus;
  stateUrl?: string;
  runtimeImage?: string;
  registryUrls?: string[];
  registrationCredential?: RegistrationCredentials;
  progressDeadlineSeconds?: number;
  workerTraceEnv?: Record<string, string>;
  /** Package builds (package-build/kube-package-builds.ts): whether a revision's package is built, and its key. */
  packages?: { gate(rev: Revision): ReadyOverride | undefined; keyOf(rev: Revision): string | undefined };
}

export class KubeRevisionBackend implements RevisionBackend {
  private readonly written = new WrittenStatus<RevisionStatus>();
  readonly pool: RevisionPool;

  constructor(private readonly o: KubeRevisionBackendOptions) {
    const pool = o.pool;
    this.pool = {
      // At zero the last specialized pod goes when idle; the first request specializes one
      // through /v1/executor/specialize.
      keep: (rev, desired, credentials) => pool.scale(rev, desired ?? 0, credentials),
      release: async (key) => {
        if (pool.specializedCount(key)) await pool.release(key);
      },
      observe: async (rev, wanted, desired) => {
        const key = objectKey(rev.metadata.namespace, rev.metadata.name);
        const ready = pool.readySpecialized(key);
        const workers: RevisionWorkers = { desired, actual: pool.specializedCount(key), ready, restarts: 0 };
        if (ready > 0 || !wanted) return { workers };
        // Pool revisions serve on demand: ready once the pool has warm pods (and stays so, as a
        // deploy revision scaled to zero does, while the pool refills after a claim).
        const environment = rev.spec.template.environment;
        const warm = pool.warmCounts()[`${rev.metadata.namespace}/${environment}`] ?? 0;
        const override: ReadyOverride =
          warm > 0 || conditionTrue(rev.status?.conditions, 'Ready')
            ? { status: 'True', reason: 'PoolExecutor', message: `served by specialized pool pods on demand (${warm} warm in environment ${environment})` }
            : { status: 'Unknown', reason: 'PoolWarming', message: `waiting for warm pods of environment ${environment}` };
        return { workers, ready: override };
      },
    };
  }

  async revision(namespace: string, name: string): Promise<Revision | undefined> {
    return parsed<Revision>(RevisionSchema, this.o.revisions.get(namespace, name));
  }

  async owner(rev: Revision): Promise<OrreryFunction | undefined> {
    const raw = this.o.functions.get(rev.metadata.namespace, rev.spec.function);
    // A Function being deleted takes its revisions with it through garbage collection.
    return raw?.metadata.deletionTimestamp ? undefined : parsed<OrreryFunction>(FunctionSchema, raw);
  }

  revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    return this.o.functionBackend.revisionsOf(namespace, fn);
  }

  /** Its Deployment and pods go with it through garbage collection (owner references). */
  async release(namespace: string, name: string): Promise<void> {
    this.written.forget(objectKey(namespace, name));
  }

  /** A revision whose package is not built runs no workers yet (deploy) and is not specialized (pool). */
  unsupported(rev: Revision): ReadyOverride | undefined {
    return this.o.packages?.gate(rev);
  }

  credentials(fn: OrreryFunction): StateCredentials | undefined {
    return this.o.credentials(fn);
  }

  async prepare(fn: OrreryFunction, rev: Revision, state: StateCredentials | undefined): Promise<void> {
    const { namespace, name } = rev.metadata;
    // The token Secret only for the keyspace's owner (the Function reconcile, which judged on the
    // API server's Functions, creates no revision for another declarer).
    if (fn.spec.state && !state && this.o.stateUrl) {
      // A token it got before its keyspace's owner showed up (two creates racing through
      // admission in one second) goes: the pods roll without it.
      await this.o.client.delete('v1', 'Secret', namespace, childName(name, 'state'));
    }
    const environment = parsed<Environment>(EnvironmentSchema, this.o.environments.get(namespace, rev.spec.template.environment));
    const children = renderRevisionChildren({
      fn,
      revision: rev,
      environment,
      state,
      runtimeImage: this.o.runtimeImage,
      registryUrls: this.o.registryUrls,
      registration: this.o.registrationCredential?.(rev),
      progressDeadlineSeconds: this.o.progressDeadlineSeconds,
      workerTraceEnv: this.o.workerTraceEnv,
      packageKey: this.o.packages?.keyOf(rev),
    });
    if (rev.spec.template.executor !== 'pool') children.unshift(renderServiceAccount(fn));
    for (const child of children) await this.o.client.apply(child);
  }

  async runWorkers(rev: Revision, desired: number): Promise<RevisionWorkers> {
    const { namespace, name } = rev.metadata;
    const deploymentName = childName(name, 'deployment');
    const dep = this.o.deployments.get(namespace, deploymentName);
    // A revision waiting for its package build has nothing rendered to scale.
    if (!dep && desired === 0 && this.o.packages?.gate(rev)) return { desired, actual: 0, ready: 0, restarts: 0 };
    const specReplicas = (dep?.spec as { replicas?: number } | undefined)?.replicas;
    if (specReplicas !== desired) {
      try {
        await this.o.client.scaleDeployment(namespace, deploymentName, desired);
      } catch (err) {
        // Never rendered (a revision waiting for its package build): zero is what it has.
        if (!(desired === 0 && isNotFound(err))) throw err;
      }
    }
    const st = (dep?.status ?? {}) as { replicas?: number; readyReplicas?: number };
    return { desired, actual: st.replicas ?? 0, ready: specReplicas === desired ? (st.readyReplicas ?? 0) : 0, restarts: 0, failed: deploymentFailure(dep) };
  }

  settle(key: string, status: RevisionStatus): RevisionStatus {
    return this.o.settle(key, status);
  }

  writeStatus(rev: Revision, status: RevisionStatus): Promise<RevisionStatus | undefined> {
    const { namespace, name } = rev.metadata;
    return this.written.write(objectKey(namespace, name), rev.status, status, () => this.o.client.applyStatus('Revision', namespace, name, status));
  }
}

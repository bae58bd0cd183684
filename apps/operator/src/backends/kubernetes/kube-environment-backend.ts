/**
 * Environments on Kubernetes (environment/environment-backend.ts): read from the informer cache;
 * the warm pool is a Deployment (render/pool.ts) whose pods mount the specialize Secret the pool
 * executor keeps (kube-pool-executor.ts) and, once it exists, the namespace's package volume.
 */
import { type Environment, EnvironmentSchema } from '@orrery/spec';
import type { EnvironmentBackend, EnvironmentStatus } from '../../environment/environment-backend.ts';
import type { Informer } from './informer.ts';
import type { KubeClient } from './kube-client.ts';
import type { KubernetesPoolExecutor } from './kube-pool-executor.ts';
import { PACKAGE_VOLUME_CLAIM } from './package-build/package-build-names.ts';
import { parsed } from './parsed-object.ts';
import { childName } from './render/labels.ts';
import { renderPoolChildren } from './render/pool.ts';

export interface KubeEnvironmentBackendOptions {
  client: KubeClient;
  environments: Informer;
  deployments: Informer;
  pool: KubernetesPoolExecutor;
  /** Reconciled=True once a failure this process recorded is resolved (reconcile-failure.ts). */
  settle: (key: string, status: EnvironmentStatus) => EnvironmentStatus;
  stateUrl?: string;
  runtimeImage?: string;
  registryUrls?: string[];
  workerTraceEnv?: Record<string, string>;
}

export class KubeEnvironmentBackend implements EnvironmentBackend {
  constructor(private readonly o: KubeEnvironmentBackendOptions) {}

  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    return parsed<Environment>(EnvironmentSchema, this.o.environments.get(namespace, name));
  }

  async prepare(env: Environment): Promise<void> {
    // The token Secret before the pool: pool pods mount it and do not start without it.
    await this.o.pool.ensureSpecializeSecret(env);
    const children = renderPoolChildren(env, this.o.runtimeImage, {
      registryUrls: this.o.registryUrls,
      stateUrl: this.o.stateUrl,
      workerTraceEnv: this.o.workerTraceEnv,
      packageVolume: await this.packageVolumeExists(env.metadata.namespace),
    });
    for (const child of children) await this.o.client.apply(child);
  }

  /**
   * Whether pool pods can mount the namespace's package volume. The operator creates the claim
   * with the first package build there (package-build/kube-package-builds.ts, which then has this
   * namespace's Environments reconciled again); mounting one that does not exist would leave pool
   * pods Pending. Read fresh (one GET per Environment reconcile), as the specialize Secret is.
   */
  private async packageVolumeExists(namespace: string): Promise<boolean> {
    const pvc = await this.o.client.get('v1', 'PersistentVolumeClaim', namespace, PACKAGE_VOLUME_CLAIM);
    return pvc !== undefined && !pvc.metadata.deletionTimestamp;
  }

  readyPoolWorkers(namespace: string, name: string): number {
    const pool = this.o.deployments.get(namespace, childName('orrery-pool', name));
    return Number((pool?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0);
  }

  settle(key: string, status: EnvironmentStatus): EnvironmentStatus {
    return this.o.settle(key, status);
  }

  async writeStatus(env: Environment, status: EnvironmentStatus): Promise<void> {
    await this.o.client.applyStatus('Environment', env.metadata.namespace, env.metadata.name, status);
  }
}

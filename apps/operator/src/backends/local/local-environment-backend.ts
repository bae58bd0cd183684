/**
 * Environments on the local backend (environment/environment-backend.ts): read from the resource
 * store; the warm pool is the local pool executor's, started with the first pool revision. An
 * Environment whose image has no local runtime (local-runtime-for-image.ts) is not Ready, and says why.
 */
import type { Environment } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { EnvironmentBackend, EnvironmentStatus } from '../../environment/environment-backend.ts';
import { setCondition } from '../../reconcile/conditions.ts';
import type { LocalRevisionPool } from './local-revision-backend.ts';

export class LocalEnvironmentBackend implements EnvironmentBackend {
  /**
   * Why an Environment's workers cannot run here, found by prepare() just before its status is
   * computed, with the time the stored status has said so since (kept: the status stays unchanged).
   */
  private readonly problems = new Map<string, { reason: string; message: string; since: Date }>();

  constructor(
    private readonly store: ResourceStore,
    private readonly pool: LocalRevisionPool | undefined,
  ) {}

  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    return (await this.store.get('Environment', namespace, name)) as Environment | undefined;
  }

  async prepare(env: Environment): Promise<void> {
    const key = `${env.metadata.namespace}/${env.metadata.name}`;
    const problem = await this.pool?.runtimeProblem?.(env.metadata.namespace, env.metadata.name);
    if (!problem) {
      this.problems.delete(key);
      return;
    }
    const stored = env.status?.conditions?.find((c) => c.type === 'Ready');
    const same = stored?.status === 'False' && stored.reason === problem.reason && stored.lastTransitionTime !== undefined;
    this.problems.set(key, { ...problem, since: same ? new Date(stored.lastTransitionTime!) : new Date() });
  }

  readyPoolWorkers(namespace: string, name: string): number {
    return this.pool?.readyWorkers?.(namespace, name) ?? 0;
  }

  settle(key: string, status: EnvironmentStatus): EnvironmentStatus {
    const problem = this.problems.get(key);
    if (!problem) return status;
    const { since, ...condition } = problem;
    return { ...status, conditions: setCondition(status.conditions, { type: 'Ready', status: 'False', ...condition }, since) };
  }

  async writeStatus(env: Environment, status: EnvironmentStatus): Promise<void> {
    await this.store.updateStatus('Environment', env.metadata.namespace, env.metadata.name, status);
  }
}

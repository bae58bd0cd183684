/**
 * Environments on the local backend (environment/environment-backend.ts): read from the resource
 * store; the warm pool is the local pool executor's, started with the first pool revision.
 */
import type { Environment } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { EnvironmentBackend, EnvironmentStatus } from '../../environment/environment-backend.ts';
import type { LocalRevisionPool } from './local-revision-backend.ts';

export class LocalEnvironmentBackend implements EnvironmentBackend {
  constructor(
    private readonly store: ResourceStore,
    private readonly pool: LocalRevisionPool | undefined,
  ) {}

  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    return (await this.store.get('Environment', namespace, name)) as Environment | undefined;
  }

  readyPoolWorkers(namespace: string, name: string): number {
    return this.pool?.readyWorkers?.(namespace, name) ?? 0;
  }

  async writeStatus(env: Environment, status: EnvironmentStatus): Promise<void> {
    await this.store.updateStatus('Environment', env.metadata.namespace, env.metadata.name, status);
  }
}

/**
 * The Environment reconciler of both backends, over an EnvironmentBackend (environment-backend.ts):
 * prepares the warm pool's objects and reports how many pool workers are warm. An Environment is
 * Ready once accepted (reconcile/environment-status.ts).
 */
import { splitKey } from '../queue/object-key.ts';
import { environmentStatus } from '../reconcile/environment-status.ts';
import { statusChanged } from '../reconcile/status-changed.ts';
import type { EnvironmentBackend } from './environment-backend.ts';

export interface EnvironmentReconcilerOptions {
  backend: EnvironmentBackend;
  now: () => Date;
}

export class EnvironmentReconciler {
  constructor(private readonly o: EnvironmentReconcilerOptions) {}

  async reconcile(key: string): Promise<void> {
    const b = this.o.backend;
    const [namespace, name] = splitKey(key);
    const env = await b.environment(namespace, name);
    if (!env) return;
    // Before the status: Kubernetes pool pods mount the specialize Secret and do not start without it.
    await b.prepare?.(env);
    const computed = environmentStatus(env, b.readyPoolWorkers(namespace, name), this.o.now());
    const status = b.settle?.(key, computed) ?? computed;
    if (statusChanged(status, env.status)) await b.writeStatus(env, status);
  }
}

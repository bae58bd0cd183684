/**
 * `status.build` on the local backend (package/build-status-store.ts): the resource store, whose
 * status writes replace the whole status, so each write carries the stored status with only
 * `status.build` changed, conditional on the resourceVersion it was read at.
 */
import { type BuildStatus, FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';
import type { BuildStatusStore, BuildStatusWrite } from '../../package/build-status-store.ts';

export class LocalBuildStatus implements BuildStatusStore {
  constructor(private readonly store: ResourceStore) {}

  async read(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    const raw = await this.store.get('Function', namespace, name);
    const r = raw && FunctionSchema.safeParse(raw);
    return r && r.success ? r.data : undefined;
  }

  async write(fn: OrreryFunction, build: BuildStatus | undefined): Promise<BuildStatusWrite> {
    const { namespace, name, resourceVersion } = fn.metadata;
    const { build: _old, ...rest } = fn.status ?? {};
    const status = build ? { ...rest, build } : rest;
    try {
      await this.store.updateStatus('Function', namespace, name, status, { resourceVersion });
      return 'written';
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict') return 'conflict';
      if (err instanceof StoreError && err.code === 'not_found') return 'gone';
      throw err;
    }
  }
}

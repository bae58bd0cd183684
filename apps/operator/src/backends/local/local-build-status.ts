/**
 * `status.build` on the local backend (package/build-status-store.ts): the resource store, whose
 * status writes replace the whole status, so each write carries the stored status with only
 * `status.build` changed, conditional on the resourceVersion it was read at.
 */
import type { BuildStatus, OrreryFunction } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { BuildStatusStore, BuildStatusWrite } from '../../package/build-status-store.ts';
import { readStoredFunction, writeFunctionStatusIfUnchanged } from './local-function-status-write.ts';

export class LocalBuildStatus implements BuildStatusStore {
  constructor(private readonly store: ResourceStore) {}

  read(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    return readStoredFunction(this.store, namespace, name);
  }

  write(fn: OrreryFunction, build: BuildStatus | undefined): Promise<BuildStatusWrite> {
    const { build: _old, ...rest } = fn.status ?? {};
    return writeFunctionStatusIfUnchanged(this.store, fn, build ? { ...rest, build } : rest);
  }
}

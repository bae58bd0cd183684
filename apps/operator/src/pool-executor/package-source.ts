/**
 * What a pool worker loads for a revision with `source.package` (docs/packages.md): the built
 * package folder, once its build Succeeded — the same gate as deploy workers (package/build-gate.ts).
 * Checked before a warm worker is taken, so a revision whose package is not built costs no worker.
 * Pure: each backend says where its built packages are.
 */
import type { Revision } from '@orrery/spec';
import type { ReadyOverride } from '../revision/revision-backend.ts';
import { SpecializeError } from './specialization.ts';

/** A built package as a pool worker loads it: an absolute folder, and the module inside it. */
export interface BuiltPackageSource {
  dir: string;
  main?: string;
}

/** A backend's package builds, as the pool executor asks them. */
export interface PoolPackages {
  /** Why the revision may not run yet (undefined: built). */
  gate(rev: Revision): ReadyOverride | undefined;
  /** Where its built package is on the pool worker (undefined: not built). */
  built(rev: Revision): BuiltPackageSource | undefined;
}

/**
 * The package source of a revision (undefined: it has no package). A build still pending or
 * running answers 503 `package_building` (the router tries again on the next cold request); a
 * failed one 409 `package_build_failed` with the build's reason.
 */
export function packageSource(rev: Revision, packages: PoolPackages | undefined): BuiltPackageSource | undefined {
  if (!rev.spec.template.source.package) return undefined;
  const name = `${rev.metadata.namespace}/${rev.metadata.name}`;
  if (!packages) throw new SpecializeError(422, 'package_unsupported', `revision ${name} has a package, but this pool executor has no package builds`);
  const gate = packages.gate(rev);
  if (gate?.status === 'False') throw new SpecializeError(409, 'package_build_failed', `revision ${name} cannot run: ${gate.message}`);
  const built = gate ? undefined : packages.built(rev);
  if (!built) throw new SpecializeError(503, 'package_building', `revision ${name} waits for its package build: ${gate?.message ?? 'not built yet'}`);
  return built;
}

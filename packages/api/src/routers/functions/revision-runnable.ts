/**
 * Which revisions can never serve: those whose package build failed (docs/packages.md, "Gate").
 * A failed build is not retried until the archive or the builder changes, so sending traffic to
 * such a revision only turns requests into errors. functions.rollback refuses them; the
 * revisions timeline disables its rollback button and the traffic editor warns, both from
 * functions.revisions' answer (the console renders the verdict, it does not compute it).
 */
import type { OrreryFunction, Revision } from '@orrery/spec';
import { badRequest } from '../../errors.ts';

/** The revision's Ready reason the operator sets when its package build failed (apps/operator/src/package/build-gate.ts). */
export const BUILD_FAILED_REASON = 'BuildFailed';
/** The refusal's stable code (error.data.issues[0].reason, and the message's first word). */
export const REVISION_NOT_RUNNABLE = 'revision_not_runnable';

export interface NotRunnable {
  /** Stable: why it cannot run. */
  reason: 'build_failed';
  /** What is wrong, in words (the build's reason and message). */
  message: string;
}

/**
 * Why `rev` can never serve, or undefined when it may. Its own Ready (False, BuildFailed) says so,
 * or the function's status.build when it is a failed build of the same archive for the same
 * environment (status.build is about the current template; the revision's Ready may lag it).
 * A build still pending or running is no verdict: the revision may yet serve.
 */
export function revisionNotRunnable(rev: Revision, fn?: Pick<OrreryFunction, 'spec' | 'status'>): NotRunnable | undefined {
  const ready = rev.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'False' && ready.reason === BUILD_FAILED_REASON) {
    return { reason: 'build_failed', message: `its package build failed${ready.message ? ` (${ready.message})` : ''}` };
  }
  const build = fn?.status?.build;
  const sha256 = rev.spec.template.source.package?.sha256;
  if (build?.phase === 'Failed' && sha256 === build.sha256 && rev.spec.template.environment === fn?.spec.template.environment) {
    return { reason: 'build_failed', message: `its package build failed (package ${build.sha256.slice(0, 12)}: ${build.reason}${build.message ? `: ${build.message}` : ''})` };
  }
  return undefined;
}

/** The revisions of `revisions` that can never serve, by name (only those). */
export function notRunnableRevisions(revisions: readonly Revision[], fn?: Pick<OrreryFunction, 'spec' | 'status'>): Record<string, NotRunnable> {
  const out: Record<string, NotRunnable> = {};
  for (const rev of revisions) {
    const why = revisionNotRunnable(rev, fn);
    if (why) out[rev.metadata.name] = why;
  }
  return out;
}

/** Throws 400 `revision_not_runnable` (issue on `revision`) when `rev` can never serve. */
export function refuseUnlessRunnable(rev: Revision, fn: Pick<OrreryFunction, 'spec' | 'status'> | undefined): void {
  const why = revisionNotRunnable(rev, fn);
  if (!why) return;
  const name = rev.metadata.name;
  const message =
    `${REVISION_NOT_RUNNABLE}: ${name} can never serve traffic: ${why.message}. ` +
    `Roll back to a revision that built, or fix the package and deploy it again (orrery describe function ${rev.spec.function} shows the build log).`;
  throw badRequest(message, [{ path: 'revision', message, reason: REVISION_NOT_RUNNABLE }]);
}

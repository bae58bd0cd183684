import { describe, expect, it } from 'vitest';
import type { BuildStatus, Condition, OrreryFunction, Revision } from '@orrery/spec';
import { issuesOf } from '../../errors.ts';
import { notRunnableRevisions, refuseUnlessRunnable, revisionNotRunnable, REVISION_NOT_RUNNABLE } from './revision-runnable.ts';

const SHA = 'a'.repeat(64);
const OTHER_SHA = 'b'.repeat(64);

function rev(n: number, opts: { sha256?: string; environment?: string; ready?: Partial<Condition> } = {}): Revision {
  const source = opts.sha256 ? { package: { sha256: opts.sha256 } } : { inline: 'export default () => new Response("hi")' };
  return {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `cart-0000${n}`, namespace: 'default' },
    spec: { function: 'cart', template: { source, environment: opts.environment ?? 'nodejs', entrypoint: 'default' } },
    ...(opts.ready ? { status: { conditions: [{ type: 'Ready', status: 'Unknown', ...opts.ready }] } } : {}),
  } as Revision;
}

const build = (phase: BuildStatus['phase'], reason: BuildStatus['reason'], sha256 = SHA): BuildStatus => ({
  sha256,
  key: 'k'.repeat(64),
  builder: 'node npm v20',
  phase,
  reason,
  ...(phase === 'Failed' ? { message: 'npm exited with code 1' } : {}),
});
const fnWith = (b: BuildStatus | undefined, environment = 'nodejs') => ({ spec: { template: { environment } }, status: b ? { build: b } : {} }) as unknown as Pick<OrreryFunction, 'spec' | 'status'>;

describe('revisionNotRunnable', () => {
  it('is undefined for a revision that is ready, not reported, or failing for another reason', () => {
    expect(revisionNotRunnable(rev(1))).toBeUndefined();
    expect(revisionNotRunnable(rev(1, { ready: { status: 'True', reason: 'Ready' } }))).toBeUndefined();
    expect(revisionNotRunnable(rev(1, { ready: { status: 'False', reason: 'WorkersFailing' } }))).toBeUndefined();
  });

  it('is undefined while the build is pending or running (Ready Unknown, Building): it may yet serve', () => {
    const building = rev(2, { sha256: SHA, ready: { status: 'Unknown', reason: 'Building' } });
    expect(revisionNotRunnable(building, fnWith(build('Building', 'Building')))).toBeUndefined();
    expect(revisionNotRunnable(building, fnWith(build('Pending', 'ArchiveMissing')))).toBeUndefined();
  });

  it("says build_failed from the revision's own Ready (False, BuildFailed), with its message", () => {
    const failed = rev(3, { sha256: SHA, ready: { status: 'False', reason: 'BuildFailed', message: 'package aaaaaaaaaaaa: Failed (DependenciesFailed)' } });
    expect(revisionNotRunnable(failed)).toEqual({ reason: 'build_failed', message: 'its package build failed (package aaaaaaaaaaaa: Failed (DependenciesFailed))' });
    expect(revisionNotRunnable(rev(3, { ready: { status: 'False', reason: 'BuildFailed' } }))?.message).toBe('its package build failed');
  });

  it("says build_failed from the function's status.build before the revision's Ready caught up, for the same archive and environment only", () => {
    const fresh = rev(4, { sha256: SHA });
    expect(revisionNotRunnable(fresh, fnWith(build('Failed', 'DependenciesFailed')))).toEqual({
      reason: 'build_failed',
      message: 'its package build failed (package aaaaaaaaaaaa: DependenciesFailed: npm exited with code 1)',
    });
    // Another archive, another environment (another builder), or a build that succeeded: no verdict.
    expect(revisionNotRunnable(rev(4, { sha256: OTHER_SHA }), fnWith(build('Failed', 'DependenciesFailed')))).toBeUndefined();
    expect(revisionNotRunnable(rev(4, { sha256: SHA, environment: 'python' }), fnWith(build('Failed', 'DependenciesFailed')))).toBeUndefined();
    expect(revisionNotRunnable(fresh, fnWith(build('Succeeded', 'Built')))).toBeUndefined();
    expect(revisionNotRunnable(rev(4), fnWith(build('Failed', 'DependenciesFailed')))).toBeUndefined();
  });
});

describe('notRunnableRevisions', () => {
  it('lists only the revisions that can never serve, by name', () => {
    const revisions = [rev(1), rev(2, { sha256: OTHER_SHA, ready: { status: 'False', reason: 'BuildFailed' } }), rev(3, { sha256: SHA })];
    expect(Object.keys(notRunnableRevisions(revisions, fnWith(build('Failed', 'MainMissing'))))).toEqual(['cart-00002', 'cart-00003']);
    expect(notRunnableRevisions([rev(1)], undefined)).toEqual({});
  });
});

describe('refuseUnlessRunnable', () => {
  it('lets a runnable revision through', () => {
    expect(() => refuseUnlessRunnable(rev(1), fnWith(undefined))).not.toThrow();
  });

  it('refuses a failed build with 400 revision_not_runnable on the revision, saying what to do', () => {
    let err: unknown;
    try {
      refuseUnlessRunnable(rev(5, { sha256: SHA }), fnWith(build('Failed', 'DependenciesFailed')));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'BAD_REQUEST' });
    const message = (err as Error).message;
    expect(message).toMatch(/^revision_not_runnable: cart-00005 can never serve traffic: its package build failed \(package aaaaaaaaaaaa: DependenciesFailed/);
    expect(message).toMatch(/Roll back to a revision that built, or fix the package and deploy it again/);
    expect(issuesOf((err as Error).cause)).toEqual([{ path: 'revision', message, reason: REVISION_NOT_RUNNABLE }]);
  });
});

import { parseResource, type Revision } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import type { ReadyOverride } from '../revision/revision-backend.ts';
import { type PoolPackages, packageSource } from './package-source.ts';
import { SpecializeError } from './specialization.ts';

const revision = (source: Record<string, unknown>): Revision => {
  const p = parseResource({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name: 'pad-00001', namespace: 'shop' }, spec: { function: 'pad', template: { source, executor: 'pool' } } });
  if (!p.ok) throw new Error(JSON.stringify(p.errors));
  return p.resource as Revision;
};
const packaged = revision({ package: { sha256: 'ab'.repeat(32) } });
const packages = (gate: ReadyOverride | undefined, built = { dir: '/pkgs/built/k1', main: 'index.mjs' }): PoolPackages => ({ gate: () => gate, built: () => (gate ? undefined : built) });
const refusal = (f: () => unknown): SpecializeError => {
  try {
    f();
  } catch (err) {
    if (err instanceof SpecializeError) return err;
    throw err;
  }
  throw new Error('no SpecializeError');
};

describe('packageSource', () => {
  it('is nothing for a revision without a package', () => {
    expect(packageSource(revision({ inline: 'x' }), undefined)).toBeUndefined();
    expect(packageSource(revision({ inline: 'x' }), packages({ status: 'False', reason: 'BuildFailed', message: 'm' }))).toBeUndefined();
  });

  it('is the built folder and module once the build succeeded', () => {
    expect(packageSource(packaged, packages(undefined))).toEqual({ dir: '/pkgs/built/k1', main: 'index.mjs' });
  });

  it('refuses while the build is pending or running (503 package_building), with the build in the message', () => {
    const e = refusal(() => packageSource(packaged, packages({ status: 'Unknown', reason: 'Building', message: 'package abababababab: Building (Building)' })));
    expect([e.status, e.code, e.message]).toEqual([503, 'package_building', 'revision shop/pad-00001 waits for its package build: package abababababab: Building (Building)']);
    // Gate open but nothing on disk (a race with a restart): still building, never a half answer.
    const racing: PoolPackages = { gate: () => undefined, built: () => undefined };
    expect(refusal(() => packageSource(packaged, racing))).toMatchObject({ status: 503, code: 'package_building', message: expect.stringMatching(/not built yet/) });
  });

  it('refuses a failed build (409 package_build_failed) with its reason, and a backend without builds (422)', () => {
    const e = refusal(() => packageSource(packaged, packages({ status: 'False', reason: 'BuildFailed', message: 'package abababababab: Failed (DependenciesFailed): npm exited 1' })));
    expect([e.status, e.code, e.message]).toEqual([409, 'package_build_failed', 'revision shop/pad-00001 cannot run: package abababababab: Failed (DependenciesFailed): npm exited 1']);
    expect(refusal(() => packageSource(packaged, undefined))).toMatchObject({ status: 422, code: 'package_unsupported' });
  });
});

/**
 * `orrery deploy NAME --code DIR` against a real local operator (docs/packages.md): the folder is
 * packed, uploaded, built with its (vendored, offline) dependency and served; a broken
 * package.json fails the deploy with the build log's tail; `orrery describe` shows the build.
 */
import { join } from 'node:path';
import { writeNodePackage } from '@orrery/builder/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalOperator, type LocalOperator } from '../testing/local-operator.ts';

let op: LocalOperator;
beforeAll(async () => {
  op = await startLocalOperator();
  await writeNodePackage(join(op.dir, 'padder'));
  await writeNodePackage(join(op.dir, 'broken'), { 'package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:vendor/nope-9.9.9.tgz' } }) });
}, 90_000);
afterAll(() => op?.close(), 60_000);

describe('orrery deploy --code DIR', () => {
  it('packs, uploads, builds and rolls out; describe shows the build', { timeout: 120_000 }, async () => {
    const r = await op.orrery(['deploy', 'padder', '--code', './padder', '--timeout', '90s']);
    expect(r.code, r.err + op.output().slice(-2000)).toBe(0);
    expect(r.out).toMatch(/^packing \.\/padder\npackage [0-9a-f]{12}: 3 files, \d+ KiB\nuploading package [0-9a-f]{12}\nfunction\.orrery\.dev\/padder created\n/);
    expect(r.out).toMatch(/package [0-9a-f]{12}: built \(1 dependencies, \d+ KiB\)/);
    expect(r.out).toContain('revision padder-00001 ready');
    // (the local-platform test with a router, local-packages.int.test.ts, calls it: '007')
    expect(r.out).toMatch(/^URL: \S+\/default\/padder$/m);
    const d = await op.orrery(['describe', 'function', 'padder']);
    expect(d.out).toMatch(/Build:\n {2}Package: +[0-9a-f]{64}\n {2}Phase: +Succeeded \(Built\), took/);
    expect(d.out).toContain('1 dependencies');
    // The same folder again: already stored, nothing to roll out.
    const again = await op.orrery(['deploy', 'padder', '--code', './padder', '--timeout', '30s']);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('already stored');
    expect(again.out).toContain('function.orrery.dev/padder unchanged');
  });

  it('a broken package.json: exit 1 with the build log tail', { timeout: 120_000 }, async () => {
    const r = await op.orrery(['deploy', 'broken', '--code', './broken', '--timeout', '90s']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/build failed \(DependenciesFailed\): npm exited/);
    expect(r.err).toMatch(/--- build log \(last \d+ bytes\) ---/);
    expect(r.err).toContain('the package did not build');
    const d = await op.orrery(['describe', 'function', 'broken']);
    expect(d.out).toMatch(/Phase: +Failed \(DependenciesFailed\)/);
    expect(d.out).toContain('Log (tail):');
  });

  it('refuses --main without a package', async () => {
    const r = await op.orrery(['deploy', 'x', '--code', './padder/handler.mjs', '--main', 'a.mjs']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--main goes with --code DIR');
  });
});

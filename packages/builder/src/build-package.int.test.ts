import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage } from './build-package.ts';
import { LogTail } from './log-tail.ts';
import { packFolder } from './pack-folder.ts';
import { writeNodePackage, writePythonPackage } from './testing/fixture-packages.ts';

// Real npm and pip, offline: dependencies come from vendored files inside each package.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'orrery-build-int-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function build(name: string, runtime: 'node' | 'python', write: (dir: string) => Promise<void>, extra: { main?: string; timeoutMs?: number } = {}) {
  const src = join(root, `${name}-src`);
  await write(src);
  const { archive, sha256 } = await packFolder(src);
  const log = new LogTail();
  const outDir = join(root, 'built', name);
  const outcome = await buildPackage({ archive, sha256, runtime, outDir, onLog: (c) => log.push(c), ...extra });
  return { outcome, outDir, log: log.toString(), archive, sha256 };
}

describe('buildPackage (npm)', () => {
  it('installs a file: dependency with npm install and the handler imports it', async () => {
    const { outcome, outDir, log } = await build('node-ok', 'node', (d) => writeNodePackage(d));
    expect(outcome).toEqual({ ok: true, dependencies: 1, sizeBytes: expect.any(Number), main: 'handler.mjs' });
    expect(log).toContain('npm install --omit=dev --ignore-scripts');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('./handler.mjs'); console.log(await (await m.default()).text())"], { cwd: outDir, encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('007');
    expect((await readdir(join(root, 'built'))).filter((n) => n.includes('.building-'))).toEqual([]);
  }, 60_000);

  it('uses npm ci with a lock file and never runs install scripts', async () => {
    const first = await build('node-lock-src-gen', 'node', (d) => writeNodePackage(d));
    expect(first.outcome.ok).toBe(true);
    const lock = await readFile(join(first.outDir, 'package-lock.json'), 'utf8');
    const marker = join(root, 'postinstall-ran');
    const { outcome, log } = await build('node-ci', 'node', (d) =>
      writeNodePackage(d, {
        'package-lock.json': lock,
        'package.json': JSON.stringify({ name: 'padder', version: '1.0.0', type: 'module', main: 'handler.mjs', scripts: { postinstall: `touch ${marker}` }, dependencies: { 'left-pad': 'file:vendor/left-pad-1.0.0.tgz' } }),
      }),
    );
    expect(outcome.ok).toBe(true);
    expect(log).toContain('npm ci');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('fails DependenciesFailed with npm\'s words in the log when a dependency is missing', async () => {
    const { outcome, outDir, log } = await build('node-broken', 'node', (d) =>
      writeNodePackage(d, { 'package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:vendor/nope-9.9.9.tgz' } }) }),
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'DependenciesFailed', message: expect.stringMatching(/npm exited with code/) });
    expect(log).toMatch(/ENOENT|nope/);
    // The builder's random folders are named by stable words (redact-build-paths.ts).
    expect(log).toContain('$PACKAGE/vendor/nope-9.9.9.tgz');
    expect(log).not.toContain(outDir);
    expect(log).not.toMatch(/orrery-build-home-/);
    expect(existsSync(outDir)).toBe(false);
  }, 60_000);

  it('fails DependenciesFailed for a package.json that is not JSON', async () => {
    const { outcome } = await build('node-json', 'node', (d) => writeNodePackage(d, { 'package.json': '{ "name": ' }));
    expect(outcome).toMatchObject({ ok: false, reason: 'DependenciesFailed', message: expect.stringMatching(/not valid JSON/) });
  });

  it('fails MainMissing when the module to load is not there', async () => {
    const { outcome } = await build('node-main', 'node', (d) => writeNodePackage(d), { main: 'src/missing.mjs' });
    expect(outcome).toMatchObject({ ok: false, reason: 'MainMissing', message: expect.stringMatching(/no src\/missing.mjs/) });
  }, 60_000);

  it('fails BuildTimeout when npm takes too long', async () => {
    const { outcome } = await build('node-timeout', 'node', (d) => writeNodePackage(d), { timeoutMs: 1 });
    expect(outcome).toMatchObject({ ok: false, reason: 'BuildTimeout' });
  }, 60_000);

  it('refuses an archive whose sha256 is not the one named, and finds a finished build done', async () => {
    const { archive, sha256, outDir } = await build('node-again', 'node', (d) => writeNodePackage(d));
    const wrong = await buildPackage({ archive, sha256: createHash('sha256').update('other').digest('hex'), runtime: 'node', outDir: join(root, 'built', 'wrong'), onLog: () => {} });
    expect(wrong).toMatchObject({ ok: false, reason: 'ArchiveInvalid', message: expect.stringMatching(/sha256 is/) });
    const logs: string[] = [];
    const again = await buildPackage({ archive, sha256, runtime: 'node', outDir, onLog: (c) => logs.push(c) });
    expect(again).toMatchObject({ ok: true, dependencies: 1 });
    expect(logs).toEqual([]);
  }, 60_000);

  it('fails ArchiveInvalid for an archive that escapes its folder', async () => {
    const evil = Buffer.from('not an archive at all');
    const sha256 = createHash('sha256').update(evil).digest('hex');
    const outcome = await buildPackage({ archive: evil, sha256, runtime: 'node', outDir: join(root, 'built', 'evil'), onLog: () => {} });
    expect(outcome).toMatchObject({ ok: false, reason: 'ArchiveInvalid' });
  });
});

describe('buildPackage (pip)', () => {
  it('installs a vendored wheel into .python-packages, offline', async () => {
    const { outcome, outDir, log } = await build('py-ok', 'python', (d) => writePythonPackage(d));
    expect(outcome).toEqual({ ok: true, dependencies: 1, sizeBytes: expect.any(Number), main: 'main.py' });
    expect(log).toContain('--no-index --find-links vendor');
    const run = spawnSync('/usr/bin/python3', ['-c', 'import sys; sys.path[:0] = [".", ".python-packages"]; import main; print(main.handler(None))'], { cwd: outDir, encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('007');
  }, 60_000);

  it('fails DependenciesFailed with pip\'s words when a requirement is not in vendor/', async () => {
    const { outcome, log } = await build('py-broken', 'python', (d) => writePythonPackage(d, { 'requirements.txt': 'no-such-package==1.0\n' }));
    expect(outcome).toMatchObject({ ok: false, reason: 'DependenciesFailed', message: expect.stringMatching(/pip exited/) });
    expect(log).toMatch(/No matching distribution found for no-such-package/);
  }, 60_000);

  it('fails MainMissing without main.py', async () => {
    const { outcome } = await build('py-nomain', 'python', async (d) => {
      await writePythonPackage(d);
      await rm(join(d, 'main.py'));
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'MainMissing', message: expect.stringMatching(/no main.py/) });
  }, 60_000);
});

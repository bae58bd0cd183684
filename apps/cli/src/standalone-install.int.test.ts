/**
 * The CLI installs on its own: `npm pack` bundles it (prepack → dist/orrery.mjs), `npm i -g`
 * of the tarball into a temp prefix installs it with its one registry dependency, and the
 * installed `orrery` — run from a folder outside the repo, with no TypeScript source to find —
 * prints its version, validates a manifest, and applies and lists a function through a running
 * admin API.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startCliApi, type CliApiHarness } from './testing/cli-api-harness.ts';
import { runCli } from './testing/local-operator.ts';

const run = promisify(execFile);
const CLI_DIR = join(import.meta.dirname, '..');
const EXAMPLE = join(CLI_DIR, '..', '..', 'examples', 'counter', 'function.yaml');
const VERSION = (JSON.parse(readFileSync(join(CLI_DIR, 'package.json'), 'utf8')) as { version: string }).version;

let dir = '';
let h: CliApiHarness;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-cli-install-'));
  h = await startCliApi();
}, 60_000);
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm pack + npm i -g', () => {
  it('installs an orrery that works without the repo', { timeout: 300_000 }, async () => {
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--json'], { cwd: CLI_DIR, maxBuffer: 16 << 20 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(info!.files.map((f) => f.path).sort()).toEqual(['bin/orrery.mjs', 'dist/orrery.mjs', 'package.json']);

    const prefix = join(dir, 'prefix');
    await run('npm', ['i', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(dir, info!.filename)], { cwd: dir, maxBuffer: 16 << 20 });
    const installed = join(prefix, 'lib', 'node_modules', '@orrery', 'cli');
    expect(readdirSync(installed).sort()).toEqual(['bin', 'dist', 'node_modules', 'package.json']);

    const work = join(dir, 'work');
    mkdirSync(work);
    const orrery = (args: string[]) => runCli(join(prefix, 'bin', 'orrery'), args, work, { ORRERY_API_URL: h.apiUrl, ORRERY_API_TOKEN: ADMIN_TOKEN });
    expect(await orrery(['--version'])).toMatchObject({ code: 0, out: `orrery ${VERSION}\n` });
    expect(await orrery(['validate', '-f', EXAMPLE])).toMatchObject({ code: 0, out: 'OK: 1 document(s) in 1 file(s) are valid\n' });
    const applied = await orrery(['apply', '-f', EXAMPLE]);
    expect(applied, applied.err).toMatchObject({ code: 0, out: 'function.orrery.dev/counter created\n' });
    expect(await orrery(['get', 'functions', '-o', 'name'])).toMatchObject({ code: 0, out: 'function.orrery.dev/counter\n' });
    expect((await orrery(['completion', 'bash'])).out).toContain('complete -F _orrery orrery');
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from './pack-folder.ts';
import { writeNodePackage } from './testing/fixture-packages.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'orrery-build.mjs');
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'orrery-build-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function orreryBuild(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
}

describe('orrery-build', () => {
  it('exits 1 with the usage on a bad flag', () => {
    const run = orreryBuild(['--archive', 'x']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--sha256 is required\nusage: orrery-build/);
  });

  it('builds, streams npm\'s output and ends with the outcome line (exit 0), also in --result', async () => {
    await writeNodePackage(join(root, 'ok'));
    const { archive, sha256 } = await packFolder(join(root, 'ok'));
    await writeFile(join(root, 'ok.tgz'), archive);
    const run = orreryBuild(['--archive', join(root, 'ok.tgz'), '--sha256', sha256, '--runtime', 'node', '--out', join(root, 'out'), '--result', join(root, 'result.json')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('npm install');
    const last = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(last).toMatchObject({ phase: 'Succeeded', reason: 'Built', dependencies: 1, main: 'handler.mjs' });
    expect(JSON.parse(await readFile(join(root, 'result.json'), 'utf8'))).toEqual(last);
  }, 60_000);

  it('exits 2 with a Failed outcome when the build fails', async () => {
    await writeNodePackage(join(root, 'bad'), { 'package.json': '{' });
    const { archive, sha256 } = await packFolder(join(root, 'bad'));
    await writeFile(join(root, 'bad.tgz'), archive);
    const run = orreryBuild(['--archive', join(root, 'bad.tgz'), '--sha256', sha256, '--runtime', 'node', '--out', join(root, 'out-bad')]);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ phase: 'Failed', reason: 'DependenciesFailed' });
    const missing = orreryBuild(['--archive', join(root, 'none.tgz'), '--sha256', sha256, '--runtime', 'node', '--out', join(root, 'out-none')]);
    expect(missing.status).toBe(2);
    expect(missing.stdout).toContain('"reason":"ArchiveMissing"');
  }, 60_000);
});

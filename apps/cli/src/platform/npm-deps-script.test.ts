/**
 * scripts/npm-deps.sh, sourced by `npm start` (scripts/start.sh) and `npm test`: npm install runs
 * on the first run and again whenever package-lock.json is newer than the last install.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './supervisor.ts';

const dir = mkdtempSync(join(tmpdir(), 'orrery-npm-deps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/npm-deps.sh', () => {
  it('installs on the first run and when package-lock.json is newer than node_modules, not otherwise', () => {
    // A fake npm that records its calls and writes what npm writes.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'npm'), '#!/bin/sh\necho "npm $*" >> calls\nmkdir -p node_modules && touch node_modules/.package-lock.json\n');
    chmodSync(join(dir, 'bin', 'npm'), 0o755);
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    const ensure = () =>
      execFileSync('bash', ['-c', `. ${JSON.stringify(join(REPO_ROOT, 'scripts', 'npm-deps.sh'))} && ensure_npm_deps '[t]'`], {
        cwd: dir,
        env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
        encoding: 'utf8',
      });
    const calls = () => readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n').length;

    expect(ensure()).toContain('[t] installing npm dependencies (first run)');
    expect(calls()).toBe(1);
    expect(ensure()).toBe('');
    expect(calls()).toBe(1);
    // The lock file changed (git pull) after the last install.
    const before = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'node_modules', '.package-lock.json'), before, before);
    writeFileSync(join(dir, 'package-lock.json'), '{"changed":true}');
    expect(ensure()).toContain('package-lock.json is newer than node_modules');
    expect(calls()).toBe(2);
    expect(ensure()).toBe('');
    expect(calls()).toBe(2);
  });

  it('start.sh and test.sh both use it', () => {
    for (const script of ['start.sh', 'test.sh']) expect(readFileSync(join(REPO_ROOT, 'scripts', script), 'utf8')).toMatch(/^\. scripts\/npm-deps\.sh\nensure_npm_deps /m);
  });
});

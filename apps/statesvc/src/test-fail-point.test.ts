import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { afterCommitHook, resolveTestFailPoint, TEST_FAIL_POINTS_ENV } from './test-fail-point.ts';

const CHART = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'charts', 'orrery');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('--test-fail-point', () => {
  it('is off without the flag, whatever the environment', () => {
    expect(resolveTestFailPoint(undefined, { [TEST_FAIL_POINTS_ENV]: '1' })).toEqual({ ok: true, point: undefined });
  });

  it('is refused unless ORRERY_TEST_FAIL_POINTS=1 is set too', () => {
    for (const env of [{}, { [TEST_FAIL_POINTS_ENV]: '' }, { [TEST_FAIL_POINTS_ENV]: 'true' }, { [TEST_FAIL_POINTS_ENV]: '0' }]) {
      const r = resolveTestFailPoint('exit-after-commit', env);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toMatch(/ORRERY_TEST_FAIL_POINTS=1/);
    }
    expect(resolveTestFailPoint('exit-after-commit', { [TEST_FAIL_POINTS_ENV]: '1' })).toEqual({ ok: true, point: 'exit-after-commit' });
  });

  it('names only known fail points', () => {
    const r = resolveTestFailPoint('exit-before-commit', { [TEST_FAIL_POINTS_ENV]: '1' });
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.message).toMatch(/one of exit-after-commit/);
  });

  it('exit-after-commit hooks the kill after a commit; no fail point hooks nothing', () => {
    let killed = 0;
    afterCommitHook('exit-after-commit', () => killed++)?.();
    expect(killed).toBe(1);
    expect(afterCommitHook(undefined, () => killed++)).toBeUndefined();
  });

  it('the Helm chart never sets the flag or the variable', () => {
    const files = filesUnder(CHART);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/test-fail-point|ORRERY_TEST_FAIL_POINTS/);
    }
  });
});

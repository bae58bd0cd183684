import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bearerChecker, readSpecializeToken } from './specialize-token.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('specialize token', () => {
  it('accepts exactly the bearer token', () => {
    const ok = bearerChecker('s3cret-token');
    expect(ok('Bearer s3cret-token')).toBe(true);
    expect(ok('bearer s3cret-token')).toBe(true);
    for (const bad of [undefined, '', 'Bearer', 'Bearer ', 'Bearer s3cret-tokenx', 'Bearer s3cret-toke', 'Basic s3cret-token', 's3cret-token', 'Bearer other']) {
      expect(ok(bad), String(bad)).toBe(false);
    }
  });

  it('an empty expected token still refuses an empty header (hashing does not turn "" into a match)', () => {
    expect(bearerChecker('')(undefined)).toBe(false);
    expect(bearerChecker('')('Bearer ')).toBe(false);
  });

  it('reads the mounted file, trimmed, and explains a missing one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-spec-token-'));
    dirs.push(dir);
    await writeFile(join(dir, 'token'), 'abc\n');
    expect(await readSpecializeToken(join(dir, 'token'))).toBe('abc');
    await expect(readSpecializeToken(join(dir, 'nope'))).rejects.toThrow(/does not exist/);
    await writeFile(join(dir, 'empty'), '');
    await expect(readSpecializeToken(join(dir, 'empty'))).rejects.toThrow(/empty/);
  });
});

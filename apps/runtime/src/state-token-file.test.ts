import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STATE_TOKEN_FILE, writeStateTokenFile } from './state-token-file.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('writeStateTokenFile', () => {
  it('writes the claims and token as JSON with mode 0444, and can rewrite it on rotation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-token-'));
    dirs.push(dir);
    const path = await writeStateTokenFile(dir, { namespace: 'default', keyspace: 'counter', token: 't1' });
    expect(path).toBe(join(dir, STATE_TOKEN_FILE));
    expect((await stat(path)).mode & 0o777).toBe(0o444);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ namespace: 'default', keyspace: 'counter', token: 't1' });
    await writeStateTokenFile(dir, { namespace: 'default', keyspace: 'counter', token: 't2' });
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('t2');
    expect(await readdir(dir)).toEqual([STATE_TOKEN_FILE]);
  });

  it('refuses empty claims', async () => {
    await expect(writeStateTokenFile(tmpdir(), { namespace: 'default', keyspace: '', token: 't' })).rejects.toThrow(/keyspace/);
  });
});

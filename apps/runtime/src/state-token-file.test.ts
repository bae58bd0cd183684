import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STATE_TOKEN_FILE, StateTokenFileError, readStateTokenFile, writeStateTokenFile } from './state-token-file.ts';

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

describe('readStateTokenFile', () => {
  const claims = { namespace: 'shop', keyspace: 'counter' };
  it('reads the JSON the operator mounts, or a bare token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-token-'));
    dirs.push(dir);
    const path = await writeStateTokenFile(dir, { ...claims, token: 'tok-1' });
    expect(await readStateTokenFile(path, claims)).toBe('tok-1');
    await writeFile(join(dir, 'bare'), 'tok-2\n');
    expect(await readStateTokenFile(join(dir, 'bare'), claims)).toBe('tok-2');
  });

  it('says what is wrong: missing file, empty, no token, another keyspace or namespace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-token-'));
    dirs.push(dir);
    await expect(readStateTokenFile(join(dir, 'nope'), claims)).rejects.toThrow(/does not exist \(is the state Secret mounted\?\)/);
    const write = async (name: string, text: string) => {
      await writeFile(join(dir, name), text);
      return join(dir, name);
    };
    await expect(readStateTokenFile(await write('empty', ' \n'), claims)).rejects.toThrow(/is empty/);
    await expect(readStateTokenFile(await write('bad', '{nope'), claims)).rejects.toThrow(/not valid JSON/);
    await expect(readStateTokenFile(await write('notoken', '{"keyspace":"counter"}'), claims)).rejects.toThrow(/no "token"/);
    await expect(readStateTokenFile(await write('other', JSON.stringify({ namespace: 'shop', keyspace: 'other', token: 't' })), claims)).rejects.toThrow(
      /is for keyspace "other" but --state-keyspace is "counter"/,
    );
    await expect(readStateTokenFile(await write('ns', JSON.stringify({ namespace: 'x', keyspace: 'counter', token: 't' })), claims)).rejects.toThrow(StateTokenFileError);
  });
});

/** Both SDKs (TypeScript and Python) against a live orrery-statesvc. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createStateClient, StateError } from '@orrery/sdk';
import { runPythonSdkTests } from './run-python-sdk-tests.ts';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x44);

describe('state SDKs against a live statesvc', () => {
  let dir: string;
  let svc: StatesvcProcess;
  let tokenPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-sdk-'));
    writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
    writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: ts, maxKeys: 3}\n- {namespace: default, keyspace: py}\n');
    tokenPath = join(dir, '.orrery-state-token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'ts', token: deriveStateToken(MASTER, 'default', 'ts') }), { mode: 0o444 });
    svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
  }, 90_000);
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('TypeScript: get / set / cas / delete / list and typed errors', async () => {
    const s = createStateClient({ url: svc.url, tokenPath });
    expect(await s.get('cart/1')).toBeNull();
    const { version } = await s.set('cart/1', { items: ['a'] });
    expect(await s.get<{ items: string[] }>('cart/1')).toEqual({ value: { items: ['a'] }, version });
    const swapped = await s.cas('cart/1', version, { items: [] });
    expect(swapped.version).toBeGreaterThan(version);
    const conflict = await s.cas('cart/1', version, 1).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(StateError);
    expect(conflict).toMatchObject({ code: 'version_conflict', status: 412 });
    await expect(s.set('cart/1', 2, { ifVersion: version })).rejects.toMatchObject({ code: 'version_conflict' });
    await s.set('cart/2', null, { ttlSeconds: 60 });
    await s.cas('cart/3', 0, 'new');
    await expect(s.set('cart/4', 1)).rejects.toMatchObject({ code: 'quota_keys', status: 429 });
    const p1 = await s.list({ prefix: 'cart/', limit: 2 });
    expect(p1.keys).toEqual(['cart/1', 'cart/2']);
    expect(await s.list({ prefix: 'cart/', cursor: p1.cursor })).toEqual({ keys: ['cart/3'], cursor: '' });
    expect(await s.delete('cart/1', { ifVersion: swapped.version })).toBe(true);
    expect(await s.delete('cart/1')).toBe(false);
    // With a precondition a missing key is a failed precondition, not "already gone".
    await expect(s.delete('cart/1', { ifVersion: swapped.version })).rejects.toMatchObject({ code: 'version_conflict', status: 412 });
    await expect(s.set('#x', 1)).rejects.toMatchObject({ code: 'bad_request', status: 400 });
  });

  it('TypeScript: a write named by the caller applies once; the name reused for another write is 422', async () => {
    const s = createStateClient({ url: svc.url, tokenPath });
    await s.delete('cart/2');
    const first = await s.set('cart/2', { n: 1 }, { idempotencyKey: 'msg-1' });
    expect(await s.set('cart/2', { n: 1 }, { idempotencyKey: 'msg-1' })).toEqual(first);
    expect((await s.get('cart/2'))?.version).toBe(first.version);
    await expect(s.set('cart/2', { n: 2 }, { idempotencyKey: 'msg-1' })).rejects.toMatchObject({ code: 'idempotency_mismatch', status: 422 });
    expect(await s.delete('cart/2', { idempotencyKey: 'msg-2' })).toBe(true);
    // The retry of the delete answers as the first did, not "already gone".
    expect(await s.delete('cart/2', { idempotencyKey: 'msg-2' })).toBe(true);
    await s.set('cart/2', null, { ttlSeconds: 60 });
  });

  it('TypeScript: reads ORRERY_STATE_URL and ORRERY_STATE_TOKEN_PATH', async () => {
    const saved = { url: process.env.ORRERY_STATE_URL, path: process.env.ORRERY_STATE_TOKEN_PATH };
    process.env.ORRERY_STATE_URL = svc.url;
    process.env.ORRERY_STATE_TOKEN_PATH = tokenPath;
    try {
      const s = createStateClient();
      expect((await s.list()).keys).toContain('cart/2');
    } finally {
      process.env.ORRERY_STATE_URL = saved.url;
      process.env.ORRERY_STATE_TOKEN_PATH = saved.path;
      if (saved.url === undefined) delete process.env.ORRERY_STATE_URL;
      if (saved.path === undefined) delete process.env.ORRERY_STATE_TOKEN_PATH;
    }
  });

  it('Python: sdk/python/test_orrery_state.py passes under python3', { timeout: 60_000 }, async () => {
    const pyToken = join(dir, 'py-token');
    writeFileSync(pyToken, JSON.stringify({ namespace: 'default', keyspace: 'py', token: deriveStateToken(MASTER, 'default', 'py') }));
    const result = await runPythonSdkTests(['unittest', '-v', 'test_orrery_state'], { ORRERY_STATE_URL: svc.url, ORRERY_STATE_TOKEN_PATH: pyToken });
    expect(result.out).toMatch(/Ran 2 tests/);
    expect(result.code, result.out).toBe(0);
  });

  it('Python: idempotent writes and retries (pytest sdk/python/test_idempotent_writes.py, its own HTTP server)', { timeout: 60_000 }, async () => {
    const result = await runPythonSdkTests(['pytest', '-q', '-p', 'no:cacheprovider', 'test_idempotent_writes.py']);
    expect(result.out).toMatch(/6 passed/);
    expect(result.code, result.out).toBe(0);
  });

  it('Python: the change feed generator (pytest sdk/python/test_changes.py: scripted server, then live)', { timeout: 90_000 }, async () => {
    const pyToken = join(dir, 'py-feed-token');
    writeFileSync(pyToken, JSON.stringify({ namespace: 'default', keyspace: 'py', token: deriveStateToken(MASTER, 'default', 'py') }));
    const result = await runPythonSdkTests(['pytest', '-q', '-p', 'no:cacheprovider', '-rs', 'test_changes.py'], { ORRERY_STATE_URL: svc.url, ORRERY_STATE_TOKEN_PATH: pyToken });
    // The live tests must have run, not been skipped.
    expect(result.out).toMatch(/8 passed/);
    expect(result.code, result.out).toBe(0);
  });

  it('Python: numbered calls of a replayable invocation (sdk/python/test_invocation_replay.py, its own HTTP server)', { timeout: 60_000 }, async () => {
    const result = await runPythonSdkTests(['unittest', '-v', 'test_invocation_replay']);
    expect(result.out).toMatch(/Ran 10 tests/);
    expect(result.code, result.out).toBe(0);
  });

  it('Python: the token file is re-read once after a 401 (sdk/python/test_token_reread.py, its own HTTP server)', { timeout: 60_000 }, async () => {
    const result = await runPythonSdkTests(['unittest', '-v', 'test_token_reread']);
    expect(result.out).toMatch(/Ran 5 tests/);
    expect(result.code, result.out).toBe(0);
  });
});

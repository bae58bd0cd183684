/** Fencing and update() in both SDKs against a live orrery-statesvc (docs/sdk.md "Fencing"). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createStateClient, FencedError, UpdateConflictError } from '@orrery/sdk';
import { runPythonSdkTests } from './run-python-sdk-tests.ts';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x46);

describe('state SDKs: fencing and update() against a live statesvc', () => {
  let dir: string;
  let svc: StatesvcProcess;
  let tokenPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-sdk-fence-'));
    writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
    writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: ts}\n- {namespace: default, keyspace: py}\n');
    tokenPath = join(dir, 'ts-token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'ts', token: deriveStateToken(MASTER, 'default', 'ts') }));
    svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
  }, 90_000);
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('TypeScript: the worker that claimed last writes; the other gets FencedError until the key moves back', async () => {
    const a = createStateClient({ url: svc.url, tokenPath, fencing: true });
    const b = createStateClient({ url: svc.url, tokenPath, fencing: true });
    await a.set('cart/1', 'a1'); // a's first write claims
    await b.set('cart/1', 'b1'); // b's first write claims: a is fenced
    const late = await a.set('cart/1', 'a-late').catch((e: unknown) => e);
    expect(late).toBeInstanceOf(FencedError);
    expect(late).toMatchObject({ code: 'fenced', status: 409, key: 'cart/1' });
    expect((late as FencedError).fence).toBeGreaterThan(0);
    await expect(a.delete('cart/1')).rejects.toBeInstanceOf(FencedError);
    await expect(a.cas('cart/1', 1, 'x')).rejects.toBeInstanceOf(FencedError);
    expect((await a.get('cart/1'))?.value).toBe('b1');
    // The router says the key moved back to a (X-Orrery-Key-Moved): its next write claims again.
    const moved = a.withKeyMoved();
    await moved.set('cart/1', 'a2');
    await moved.set('cart/1', 'a3'); // once per key per request: the same fence
    await expect(b.set('cart/1', 'b-late')).rejects.toBeInstanceOf(FencedError);
    await a.set('cart/1', 'a4'); // the process's table holds the new fence
    expect((await b.get('cart/1'))?.value).toBe('a4');
    // Concurrent first writes in one process share one claim (a second would fence the first).
    const c = createStateClient({ url: svc.url, tokenPath, fencing: true });
    await Promise.all(Array.from({ length: 8 }, (_, i) => c.set('cart/2', i)));
    // fencing: false sends no fence: not checked.
    await createStateClient({ url: svc.url, tokenPath, fencing: false }).set('cart/2', 'plain');
    expect((await c.get('cart/2'))?.value).toBe('plain');
  });

  it('TypeScript: update() reads, applies and compare-and-swaps, retrying on conflicts, fenced', async () => {
    const s = createStateClient({ url: svc.url, tokenPath, fencing: true });
    const other = createStateClient({ url: svc.url, tokenPath, fencing: false });
    expect((await s.update<number>('counter', (v) => (v ?? 0) + 1)).value).toBe(1);
    const seen: number[] = [];
    const out = await s.update<number>('counter', async (v) => {
      seen.push(v!);
      if (seen.length === 1) await other.set('counter', 100); // another writer between the read and the CAS
      return v! + 1;
    });
    expect(seen).toEqual([1, 100]);
    expect(out.value).toBe(101);
    expect(await s.get('counter')).toEqual({ value: 101, version: out.version });
    const lost = await s
      .update<number>('counter', async (v) => {
        await other.set('counter', v! + 1000);
        return v! + 1;
      }, { retries: 2 })
      .catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(UpdateConflictError);
    expect(lost).toMatchObject({ attempts: 3, code: 'version_conflict' });
    // Fenced: another worker claims; the update fails at once (not retried) and writes nothing.
    const before = await s.get('counter');
    await createStateClient({ url: svc.url, tokenPath, fencing: true }).claim('counter');
    let calls = 0;
    await expect(s.update<number>('counter', (v) => (calls++, v! + 1))).rejects.toBeInstanceOf(FencedError);
    expect(calls).toBe(1);
    expect(await s.get('counter')).toEqual(before);
  });

  it('TypeScript: 40 concurrent update()s of one key in one process all land, one CAS each (no races among themselves)', async () => {
    let cas = 0;
    const counting: typeof fetch = (input, init) => {
      if ((input instanceof Request ? input.url : input.toString()).endsWith('/cas')) cas++;
      return fetch(input, init);
    };
    const s = createStateClient({ url: svc.url, tokenPath, fetch: counting });
    const results = await Promise.all(Array.from({ length: 40 }, () => s.update<number>('hot', (v) => (v ?? 0) + 1)));
    expect(results.map((r) => r.value).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await s.get('hot'))?.value).toBe(40);
    expect(cas).toBe(40);
  });

  it('Python: sdk/python/test_fencing.py passes against this statesvc', { timeout: 60_000 }, async () => {
    const pyToken = join(dir, 'py-token');
    writeFileSync(pyToken, JSON.stringify({ namespace: 'default', keyspace: 'py', token: deriveStateToken(MASTER, 'default', 'py') }));
    const result = await runPythonSdkTests(['pytest', '-q', '-p', 'no:cacheprovider', '-rs', 'test_fencing.py'], { ORRERY_STATE_URL: svc.url, ORRERY_STATE_TOKEN_PATH: pyToken });
    expect(result.out).toMatch(/5 passed/);
    expect(result.code, result.out).toBe(0);
  });
});

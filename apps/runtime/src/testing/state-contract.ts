/**
 * Stateful workers against the real orrery-statesvc (a master key, the memory driver): the token
 * file written 0444 and its path exported (never the token), ctx.state (the runtime's SDK) counting
 * across revisions and restarts, a token of another keyspace refused, and fencing with the
 * router's key-moved mark.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { INVOCATION_ID_HEADER } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { STATESVC_BIN, statesvcForBlock } from './real-statesvc.ts';
import { stopRuntime, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';
import { runtimeWorkers } from './runtime-workers.ts';

const MASTER = Buffer.alloc(32, 0x5a);
const token = (keyspace: string) => deriveStateToken(MASTER, 'shop', keyspace);

/** `200 <count>` or `<status> <code>` of the probe's /count. */
export async function countOn(w: RuntimeProcess, key = 'visits', headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${w.url}/count?key=${key}`, { headers });
  const body = (await res.json()) as { count?: number; code?: string };
  return `${res.status} ${res.status === 200 ? body.count : body.code}`;
}

export function stateContract(runtime: RuntimeUnderTest): void {
  describe.skipIf(!existsSync(STATESVC_BIN))(`stateful ${runtime.name} workers against the real orrery-statesvc`, () => {
    const workers = runtimeWorkers('orrery-runtime-statesvc-', runtime.start);
    const statesvc = statesvcForBlock(workers.dir, MASTER, [['shop', 'counts'], ['shop', 'other']]);

    const worker = (revision: string, tokenValue: string, extra: string[] = []) =>
      workers.start(
        ['--function', 'counter', '--revision', revision, '--namespace', 'shop', '--source-file', runtime.probe,
          '--work-dir', join(workers.dir(), revision), '--state-url', statesvc().url, '--state-keyspace', 'counts', ...extra],
        { ORRERY_STATE_TOKEN: tokenValue },
      );

    it('writes the token file 0444, exports its path and URL (not the token), counts, and never logs the token', { timeout: 60_000 }, async () => {
      const w = await worker('counter-00007', token('counts'));
      const tokenPath = join(workers.dir(), 'counter-00007', '.orrery-state-token');
      expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
      expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'counts', token: token('counts') });
      const env = (await (await fetch(`${w.url}/env`)).json()) as { env: Record<string, unknown>; ctx: Record<string, unknown> };
      // A probe that also shows ORRERY_SPECIALIZE_VERIFIER: a deploy-mode worker has none.
      const verifier = 'ORRERY_SPECIALIZE_VERIFIER' in env.env ? { ORRERY_SPECIALIZE_VERIFIER: null } : {};
      expect(env.env).toEqual({ ORRERY_STATE_URL: statesvc().url, ORRERY_STATE_TOKEN_PATH: tokenPath, ORRERY_STATE_TOKEN: null, ORRERY_REGISTRY_CREDENTIAL: null, ORRERY_REVISION: 'counter-00007', ...verifier });
      expect(env.ctx).toEqual({ namespace: 'shop', function: 'counter', revision: 'counter-00007', hasState: true });
      expect(await countOn(w, 'first')).toBe('200 1');
      expect(await countOn(w, 'first')).toBe('200 2');
      await stopRuntime(w);
      expect(w.stderr()).toContain('state token file written');
      expect(w.stderr()).toMatch(/"source":"function".*"msg":"counted"/);
      expect(w.stderr() + w.stdout()).not.toContain(token('counts'));
    });

    it('the count survives a new revision and a worker restart; a token for another keyspace is refused', { timeout: 90_000 }, async () => {
      const r1 = await worker('counter-00001', token('counts'));
      expect(await countOn(r1)).toBe('200 1');
      expect(await countOn(r1)).toBe('200 2');
      const r2 = await worker('counter-00002', token('counts'));
      expect(await countOn(r2)).toBe('200 3');
      await stopRuntime(r1);
      const r1again = await worker('counter-00001', token('counts'));
      expect(await countOn(r1again)).toBe('200 4');

      // A token derived for another keyspace does not open this one (the SDK's StateError surfaces as handler_error).
      const wrong = await worker('counter-00003', token('other'));
      expect(await countOn(wrong)).toBe('500 handler_error');
      expect(wrong.stderr()).toMatch(/StateError/);
    });

    it('a replayed invocation (one Orrery-Invocation-Id on two workers) reads what the first run read and writes once', { timeout: 90_000 }, async () => {
      const a = await worker('counter-00020', token('counts'));
      const b = await worker('counter-00021', token('counts'));
      const id = { [INVOCATION_ID_HEADER]: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' };
      expect(await countOn(a, 'replayed', id)).toBe('200 1');
      expect(await countOn(b, 'replayed')).toBe('200 2'); // another invocation moves the key on
      // The router's replay of the first request on another worker: the first run's answer, no second increment.
      expect(await countOn(b, 'replayed', id)).toBe('200 1');
      expect(await countOn(a, 'replayed', id)).toBe('200 1');
      expect(await countOn(a, 'replayed')).toBe('200 3');
      // An id the router would not mint is not a replay: the request counts as a new one.
      expect(await countOn(a, 'replayed', { [INVOCATION_ID_HEADER]: 'not an id' })).toBe('200 4');
    });

    it('--state-fencing on: the last worker to claim a key writes it; the other is refused until the router says the key moved back', { timeout: 90_000 }, async () => {
      const a = await worker('counter-00010', token('counts'), ['--state-fencing', 'on']);
      const b = await worker('counter-00011', token('counts'), ['--state-fencing', 'on']);
      expect(await countOn(a, 'fenced')).toBe('200 1'); // a claims the key with its first write
      expect(await countOn(b, 'fenced')).toBe('200 2'); // so does b, later: a is fenced out
      expect(await countOn(a, 'fenced')).toBe('500 handler_error');
      expect(a.stderr()).toMatch(/FencedError/);
      expect(await countOn(b, 'fenced')).toBe('200 3'); // a's refused write changed nothing
      // The router marks the request that moved the key back to a: a claims again, b is out.
      expect(await countOn(a, 'fenced', { 'x-orrery-key-moved': '1' })).toBe('200 4');
      expect(await countOn(b, 'fenced')).toBe('500 handler_error');
      expect(await countOn(a, 'fenced')).toBe('200 5');
      // Without the flag a worker does not fence: it writes whatever the claims say.
      const plain = await worker('counter-00012', token('counts'));
      expect(await countOn(plain, 'fenced')).toBe('200 6');
    });
  });
}

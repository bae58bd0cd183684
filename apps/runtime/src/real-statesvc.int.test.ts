import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatesvcProcess } from '@orrery/statesvc/testing';
import { STATESVC_BIN, statesvcWithKeyspaces } from './testing/real-statesvc.ts';
import { PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

// The real orrery-statesvc (apps/statesvc) with a master key, as a child process.
const MASTER = Buffer.alloc(32, 0x5a);

let dir: string;
let statesvc: StatesvcProcess | undefined;
let stateUrl: string;
const workers: RuntimeProcess[] = [];

beforeAll(async () => {
  if (!existsSync(STATESVC_BIN)) return;
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-statesvc-'));
  statesvc = await statesvcWithKeyspaces(dir, MASTER, [['shop', 'counts'], ['shop', 'other']]);
  stateUrl = statesvc.url;
}, 90_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await statesvc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const worker = async (revision: string, token: string, extra: string[] = []) => {
  const w = await startRuntime(
    ['--function', 'counter', '--revision', revision, '--namespace', 'shop', '--source-file', PROBE_FIXTURE,
      '--work-dir', join(dir, revision), '--state-url', stateUrl, '--state-keyspace', 'counts', ...extra],
    { ORRERY_STATE_TOKEN: token },
  );
  workers.push(w);
  return w;
};
const count = async (w: RuntimeProcess, key = 'visits', headers: Record<string, string> = {}) => {
  const res = await fetch(`${w.url}/count?key=${key}`, { headers });
  return `${res.status} ${res.status === 200 ? (await res.json()).count : (await res.json()).code}`;
};

describe.skipIf(!existsSync(STATESVC_BIN))('stateful workers against the real orrery-statesvc', () => {
  it('writes the token file 0444, exports its path and URL (not the token), and never logs the token', { timeout: 60_000 }, async () => {
    const token = deriveStateToken(MASTER, 'shop', 'counts');
    const w = await worker('counter-00007', token);
    const tokenPath = join(dir, 'counter-00007', '.orrery-state-token');
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
    expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'counts', token });
    const env = await (await fetch(`${w.url}/env`)).json();
    expect(env.env).toEqual({ ORRERY_STATE_URL: stateUrl, ORRERY_STATE_TOKEN_PATH: tokenPath, ORRERY_STATE_TOKEN: null, ORRERY_REGISTRY_CREDENTIAL: null, ORRERY_REVISION: 'counter-00007' });
    expect(env.ctx).toEqual({ namespace: 'shop', function: 'counter', revision: 'counter-00007', hasState: true });
    expect(await count(w, 'other-key')).toBe('200 1');
    await stopRuntime(w);
    expect(w.stderr()).toContain('state token file written');
    expect(w.stderr()).toContain('counted');
    expect(w.stderr() + w.stdout()).not.toContain(token);
  });

  it('the count survives a new revision and a worker restart; a token for another keyspace is refused', { timeout: 90_000 }, async () => {
    const token = deriveStateToken(MASTER, 'shop', 'counts');
    const r1 = await worker('counter-00001', token);
    expect(await count(r1)).toBe('200 1');
    expect(await count(r1)).toBe('200 2');
    const r2 = await worker('counter-00002', token);
    expect(await count(r2)).toBe('200 3');
    await stopRuntime(r1);
    const r1again = await worker('counter-00001', token);
    expect(await count(r1again)).toBe('200 4');

    // A token derived for another keyspace does not open this one (the SDK's StateError surfaces as handler_error).
    const wrong = await worker('counter-00003', deriveStateToken(MASTER, 'shop', 'other'));
    expect(await count(wrong)).toBe('500 handler_error');
    expect(wrong.stderr()).toMatch(/StateError|unauthorized|forbidden/);
  });

  it('--state-fencing on: the last worker to claim a key writes it; the other is refused until the router says the key moved back', { timeout: 90_000 }, async () => {
    const token = deriveStateToken(MASTER, 'shop', 'counts');
    const a = await worker('counter-00010', token, ['--state-fencing', 'on']);
    const b = await worker('counter-00011', token, ['--state-fencing', 'on']);
    expect(await count(a, 'fenced')).toBe('200 1'); // a claims the key with its first write
    expect(await count(b, 'fenced')).toBe('200 2'); // so does b, later: a is fenced out
    expect(await count(a, 'fenced')).toBe('500 handler_error');
    expect(a.stderr()).toMatch(/fenced/i);
    expect(await count(b, 'fenced')).toBe('200 3'); // a's refused write changed nothing
    // The router marks the request that moved the key back to a: a claims again, b is out.
    expect(await count(a, 'fenced', { 'x-orrery-key-moved': '1' })).toBe('200 4');
    expect(await count(b, 'fenced')).toBe('500 handler_error');
    expect(await count(a, 'fenced')).toBe('200 5');
    // Without the flag a worker does not fence: it writes whatever the claims say.
    const plain = await worker('counter-00012', token);
    expect(await count(plain, 'fenced')).toBe('200 6');
  });
});

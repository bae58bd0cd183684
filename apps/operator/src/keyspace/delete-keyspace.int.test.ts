import { randomBytes } from 'node:crypto';
import { deriveStateToken } from '@orrery/auth';
import { parseKeyspaces, startStateServer, type RunningStateServer } from '@orrery/statesvc';
import { MemoryDriver } from '@orrery/statestore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyspaceDeletionError, createKeyspaceDeleter } from './delete-keyspace.ts';

const MASTER = randomBytes(32);
let srv: RunningStateServer;

const keyspaces = parseKeyspaces(`
- {namespace: shop, keyspace: cart, maxKeys: 100, maxValueBytes: 1024}
- {namespace: shop, keyspace: keep, maxKeys: 100, maxValueBytes: 1024}
`);

async function put(keyspace: string, key: string, value: unknown): Promise<number> {
  const res = await fetch(`${srv.url}/v1/state/${key}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${deriveStateToken(MASTER, 'shop', keyspace)}`, 'x-orrery-state-namespace': 'shop', 'x-orrery-state-keyspace': keyspace },
    body: JSON.stringify(value),
  });
  return res.status;
}
async function get(keyspace: string, key: string): Promise<number> {
  const res = await fetch(`${srv.url}/v1/state/${key}`, {
    headers: { authorization: `Bearer ${deriveStateToken(MASTER, 'shop', keyspace)}`, 'x-orrery-state-namespace': 'shop', 'x-orrery-state-keyspace': keyspace },
  });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false });
});
afterAll(async () => {
  await srv?.close();
});

describe('keyspace deletion through statesvc’s signed admin call (real statesvc server)', () => {
  it('deletes every key of one keyspace and leaves the others', async () => {
    for (const k of ['a', 'b', 'c']) expect(await put('cart', k, { n: 1 })).toBe(200);
    expect(await put('keep', 'x', 1)).toBe(200);
    const deleted = await createKeyspaceDeleter({ stateUrl: `${srv.url}/`, masterKey: MASTER })('shop', 'cart');
    expect(deleted).toBe(3);
    for (const k of ['a', 'b', 'c']) expect(await get('cart', k)).toBe(404);
    expect(await get('keep', 'x')).toBe(200);
  });

  it('a wrong master key or an expired clock is refused (401), and the data stays', async () => {
    expect(await put('cart', 'd', 1)).toBe(200);
    const wrongKey = createKeyspaceDeleter({ stateUrl: srv.url, masterKey: randomBytes(32) });
    await expect(wrongKey('shop', 'cart')).rejects.toThrow(/answered 401 \(unauthorized/);
    const stale = createKeyspaceDeleter({ stateUrl: srv.url, masterKey: MASTER, now: () => Date.now() - 3_600_000 });
    await expect(stale('shop', 'cart')).rejects.toBeInstanceOf(KeyspaceDeletionError);
    expect(await get('cart', 'd')).toBe(200);
  });

  it('an unreachable statesvc is an error (the finalizer stays), not a silent success', async () => {
    const gone = createKeyspaceDeleter({ stateUrl: 'http://127.0.0.1:1', masterKey: MASTER, timeoutMs: 2000 });
    await expect(gone('shop', 'cart')).rejects.toThrow(/did not answer/);
  });
});

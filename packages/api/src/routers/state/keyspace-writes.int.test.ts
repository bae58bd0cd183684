/**
 * state.keyspaceWrites against the real statesvc (signed admin read): the change feed's newest
 * changes, idempotency outcomes and fences of one keyspace, keys hashed for viewers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { issuesOf } from '../../errors.ts';
import { hotKeyHasher, stateKeyScope } from '../../hot-keys/hot-key-id.ts';
import { createHarness, rejection, type Harness } from '../../testing/api-harness.ts';
import { spawnStatesvc } from '@orrery/statesvc/testing';

const masterKey = randomBytes(32);
let dir: string;
let statesvc: Awaited<ReturnType<typeof spawnStatesvc>>;
let h: Harness;

async function state(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; json: { fence?: number } }> {
  const res = await fetch(`${statesvc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${deriveStateToken(masterKey, 'default', 'carts')}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'carts', ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as { fence?: number } };
}

let fence2 = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-api-writes-'));
  writeFileSync(join(dir, 'master.key'), masterKey.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: carts}\n');
  const [svc, harness] = await Promise.all([spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]), createHarness()]);
  statesvc = svc;
  h = harness;
  h.services.statesvc = { url: statesvc.url, masterKey };
  const f1 = (await state('POST', '/v1/fences/cart%2Falice')).json.fence!;
  expect((await state('PUT', '/v1/state/cart%2Falice', { 'x-orrery-fence': String(f1), 'idempotency-key': 'w-1' }, '{"items":["secret-item"]}')).status).toBe(200);
  expect((await state('PUT', '/v1/state/cart%2Falice', { 'x-orrery-fence': String(f1), 'idempotency-key': 'w-1' }, '{"items":["secret-item"]}')).status).toBe(200);
  fence2 = (await state('POST', '/v1/fences/cart%2Falice')).json.fence!;
  expect((await state('PUT', '/v1/state/cart%2Falice', { 'x-orrery-fence': String(f1) }, '"late"')).status).toBe(409);
}, 90_000);
afterAll(async () => {
  await statesvc?.stop();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('state.keyspaceWrites', () => {
  it('operator: the keys, the feed window, idempotency outcomes, fences and the replica counts', async () => {
    const r = await h.as('operator').state.keyspaceWrites({ keyspace: 'carts' });
    expect(r).toMatchObject({ namespace: 'default', keyspace: 'carts', hashed: false });
    expect(r.changes).toMatchObject({ low: 0, head: 1, openStreams: 0 });
    expect(r.changes.recent).toEqual([{ seq: 1, key: 'cart/alice', op: 'set', version: expect.any(Number), at: expect.any(Number) }]);
    expect(r.changes.oldestAt).toBe(r.changes.recent[0]!.at);
    expect(r.idempotency).toMatchObject({ records: 1, replayed: 1, mismatched: 0, retentionMs: 24 * 3_600_000 });
    expect(r.fences).toEqual({ keys: 1, newest: [{ key: 'cart/alice', fence: fence2 }], claimed: 2, refused: 1 });
    expect(JSON.stringify(r)).not.toContain('secret-item');
  });

  it('viewer: the same numbers with keyed hashes instead of keys (the hot-keys panel\'s ids)', async () => {
    const r = await h.as('viewer').state.keyspaceWrites({ keyspace: 'carts' });
    expect(r.hashed).toBe(true);
    const id = hotKeyHasher(masterKey)(stateKeyScope('default', 'carts'), 'cart/alice');
    expect(r.changes.recent.map((c) => c.key)).toEqual([id]);
    expect(r.fences.newest).toEqual([{ key: id, fence: fence2 }]);
    expect(JSON.stringify(r)).not.toContain('alice');
  });

  it('an undeclared keyspace is NOT_FOUND; a wrong master key is refused by statesvc; no statesvc is PRECONDITION_FAILED', async () => {
    expect((await rejection(h.as('viewer').state.keyspaceWrites({ keyspace: 'nope' }))).code).toBe('NOT_FOUND');
    const saved = h.services.statesvc;
    try {
      h.services.statesvc = { url: statesvc.url, masterKey: randomBytes(32) };
      const err = await rejection(h.as('operator').state.keyspaceWrites({ keyspace: 'carts' }));
      expect(err.code).toBe('BAD_GATEWAY');
      expect(err.message).not.toContain('signature=');
      h.services.statesvc = undefined;
      expect((await rejection(h.as('operator').state.keyspaceWrites({ keyspace: 'carts' }))).code).toBe('PRECONDITION_FAILED');
    } finally {
      h.services.statesvc = saved;
    }
  });

  it('needs a session; bad input is BAD_REQUEST with the path', async () => {
    expect((await rejection(h.as(undefined).state.keyspaceWrites({ keyspace: 'carts' }))).code).toBe('UNAUTHORIZED');
    for (const [input, path] of [
      [{ keyspace: 'Bad!' }, 'keyspace'],
      [{ keyspace: 'carts', limit: 0 }, 'limit'],
      [{ keyspace: 'carts', limit: 101 }, 'limit'],
    ] as const) {
      const err = await rejection(h.as('viewer').state.keyspaceWrites(input));
      expect(err.code).toBe('BAD_REQUEST');
      expect(issuesOf(err.cause)?.[0]?.path).toBe(path);
    }
  });
});

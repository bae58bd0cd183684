import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken, signAdminUrl } from '@orrery/auth';
import { issuesOf } from '../../errors.ts';
import { createHarness, fnManifest, rejection, type Harness } from '../../testing/api-harness.ts';
import { spawnStatesvc } from '@orrery/statesvc/testing';

const masterKey = randomBytes(32);
let dir: string;
let statesvc: Awaited<ReturnType<typeof spawnStatesvc>>;
let h: Harness;

async function put(key: string, value: unknown) {
  const res = await fetch(`${statesvc.url}/v1/state/${key}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${deriveStateToken(masterKey, 'default', 'cart')}`,
      'x-orrery-state-namespace': 'default',
      'x-orrery-state-keyspace': 'cart',
      'content-type': 'application/json',
    },
    body: JSON.stringify(value),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-api-state-'));
  writeFileSync(join(dir, 'master.key'), masterKey.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: cart, maxKeys: 50, maxValueBytes: 4096}\n');
  const [svc, harness] = await Promise.all([
    spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--namespace-byte-budget', '10000']),
    createHarness(),
  ]);
  statesvc = svc;
  h = harness;
  h.services.statesvc = { url: statesvc.url, masterKey };
  await h.store.apply(fnManifest('shop', 'export default 1', { state: { keyspace: 'cart', maxKeys: 50, maxValueBytes: 4096 } }));
  await h.store.apply(fnManifest('plain'));
  await put('a', { n: 1 });
  await put('b', 'hello');
  await put('c', [1, 2, 3]);
}, 90_000);
afterAll(async () => {
  await statesvc?.stop();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function adminGet(path: string) {
  const res = await fetch(`${statesvc.url}${signAdminUrl(masterKey, 'GET', path, Date.now() / 1000 + 60)}`);
  return res.json() as Promise<Record<string, unknown>>;
}

describe('state.keyspaces (viewer, real statesvc)', () => {
  it('equals statesvc’s signed admin usage for each stateful function', async () => {
    const r = await h.as('viewer').state.keyspaces({ namespace: 'default' });
    expect(r.items.map((i) => i.function)).toEqual(['shop']); // `plain` has no state
    const direct = await adminGet('/v1/admin/usage?scope-namespace=default&scope-keyspace=cart');
    expect(r.items[0]).toMatchObject({ keyspace: 'cart', keys: direct.keys, bytes: direct.bytes, maxKeys: 50, maxValueBytes: 4096 });
    expect(r.items[0]!.keys).toBe(3);
    expect(r.items[0]!.keysPercent).toBe(6);
  });
  it('one function; unknown function is NOT_FOUND; needs a session', async () => {
    expect((await h.as('viewer').state.keyspaces({ function: 'shop' })).items).toHaveLength(1);
    expect((await rejection(h.as('viewer').state.keyspaces({ function: 'ghost' }))).code).toBe('NOT_FOUND');
    expect((await rejection(h.as(undefined).state.keyspaces({}))).code).toBe('UNAUTHORIZED');
  });
  it('refuses bad input with the zod path', async () => {
    const err = await rejection(h.as('viewer').state.keyspaces({ function: 'Shop!' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('function');
  });
  it('a wrong master key is refused by statesvc (the API really signs)', async () => {
    const saved = h.services.statesvc;
    h.services.statesvc = { url: statesvc.url, masterKey: randomBytes(32) };
    try {
      const err = await rejection(h.as('viewer').state.keyspaces({}));
      expect(err.code).toBe('BAD_GATEWAY');
      expect(err.message).not.toContain('signature=');
    } finally {
      h.services.statesvc = saved;
    }
  });
});

describe('state.namespaces (viewer, real statesvc)', () => {
  it('equals statesvc’s namespace usage, with the byte budget percentage', async () => {
    const r = await h.as('viewer').state.namespaces({ namespace: 'default' });
    const direct = (await adminGet('/v1/admin/namespaces?scope-namespace=default')) as { namespaces: Array<{ keys: number; bytes: number; byteBudget: number }> };
    expect(r.items[0]).toMatchObject({ namespace: 'default', keys: direct.namespaces[0]!.keys, bytes: direct.namespaces[0]!.bytes, byteBudget: 10000 });
    expect(r.items[0]!.bytesPercent).toBe(Math.round((direct.namespaces[0]!.bytes / 10000) * 1000) / 10);
    expect(r.items[0]!.keyspaces.find((k) => k.keyspace === 'cart')!.keys).toBe(3);
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).state.namespaces({}))).code).toBe('UNAUTHORIZED');
  });
  it('refuses bad input with the zod path', async () => {
    const err = await rejection(h.as('viewer').state.namespaces({ namespace: 'x'.repeat(64) }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('namespace');
  });
});

describe('state.history (viewer; rollups from collectKeyspaceRollup against the real statesvc)', () => {
  it('keeps the last sample of each minute per keyspace', async () => {
    const { collectKeyspaceRollup } = await import('../../rollups/keyspace-rollup-collector.ts');
    // A fixed clock: two samples must land in one minute whatever the wall clock does.
    const fixed = new Date();
    h.services.now = () => fixed;
    expect(await collectKeyspaceRollup(h.services)).toBeGreaterThan(0);
    await put('d', 1);
    await collectKeyspaceRollup(h.services);
    const r = await h.as('viewer').state.history({ keyspace: 'cart' });
    expect(r.points).toHaveLength(1);
    expect(r.points[0]!.keys).toBe(4);
    const err = await rejection(h.as('viewer').state.history({ keyspace: 'Bad#' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('keyspace');
    h.services.now = undefined;
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).state.history({ keyspace: 'cart' }))).code).toBe('UNAUTHORIZED');
  });
});

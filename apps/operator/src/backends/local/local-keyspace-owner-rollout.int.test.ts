/**
 * One keyspace, one owner in the reconcilers (issue 21 item 9; seed invariant S1): a Function
 * that declares a keyspace another Function owns (first created, then name) gets no state token
 * and its rollout stops with ConfigurationsReady=False, reason state_keyspace_taken, naming the
 * owner; it proceeds once the owner is deleted or moves to another keyspace. The local store's
 * apply check refuses a second declaration under its write lock, so the two declarers are made
 * the way a database written before that rule (or a restored backup) holds them: the keyspace is
 * changed in the store's table directly, and updates that keep it pass the check (ratcheting).
 * Real store (embedded); the backend is a stand-in that records the credentials workers get.
 */
import { deriveStateToken } from '@orrery/auth';
import { connect } from '@orrery/db';
import { type Condition, type OrreryFunction, keyspaceTakenMessage } from '@orrery/spec';
import { type ResourceStore, createLocalStore } from '@orrery/store';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StateCredentials } from '@orrery/spec';
import type { LocalBackend } from './local-backend.ts';
import { LocalFunctionOperator } from './local-function-operator.ts';

const MASTER = Buffer.alloc(32, 9);
const NS = 'shop';
let conn: ReturnType<typeof connect>;
let store: ResourceStore;
let operator: LocalFunctionOperator | undefined;
/** Per revision key, the credentials of every scale call that started workers. */
const scaled = new Map<string, (StateCredentials | undefined)[]>();
const backend = {
  scale: async (rev: { metadata: { namespace: string; name: string } }, desired: number, credentials?: StateCredentials) => {
    const key = `${rev.metadata.namespace}/${rev.metadata.name}`;
    if (desired > 0) scaled.set(key, [...(scaled.get(key) ?? []), credentials]);
  },
  observe: () => ({ desired: 0, actual: 0, ready: 0, restarts: 0 }),
  revisionKeys: () => [],
} as unknown as LocalBackend;

const fn = (name: string, keyspace: string, labels?: Record<string, string>) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
  spec: { template: { source: { inline: 'export default () => "hi"' } }, state: { keyspace } },
});
/** Below the apply check: the stored keyspace, as a database from before the rule may hold it. */
const storedKeyspace = (name: string, keyspace: string) =>
  conn.db.execute(sql`update orrery_resources set spec = jsonb_set(spec, '{state,keyspace}', to_jsonb(${keyspace}::text)) where kind = 'Function' and namespace = ${NS} and name = ${name}`);
const condition = async (name: string, type: string) => ((await store.get('Function', NS, name)) as OrreryFunction | undefined)?.status?.conditions?.find((c: Condition) => c.type === type);
const revisions = async (name: string) => (await store.list('Revision', { namespace: NS, labels: { 'orrery.dev/function': name } })).items.map((r) => r.metadata.name);
const settled = async () => {
  await operator!.functions.idle();
  await operator!.revisions.idle();
};
const startOperator = async () => {
  // No periodic resync during the test: only events move a waiting Function on.
  operator = new LocalFunctionOperator({ store, backend, masterKey: MASTER, stateUrl: 'http://statesvc.invalid', resyncMs: 3_600_000 });
  await operator.start();
  await settled();
};
const later = () => new Promise((r) => setTimeout(r, 20)); // distinct creation times

beforeAll(async () => {
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
}, 120_000);
afterAll(async () => {
  await operator?.stop();
  await store?.close();
  await conn?.close();
});

describe('a keyspace another Function owns', () => {
  it('gets no token and no rollout, with the validation error’s words; proceeds once the owner is deleted', { timeout: 60_000 }, async () => {
    await store.apply(fn('first', 'shared'));
    await later();
    await store.apply(fn('second', 'own'));
    await storedKeyspace('second', 'shared');
    await startOperator();

    expect(await revisions('first')).toEqual(['first-00001']);
    expect(scaled.get(`${NS}/first-00001`)?.at(-1)?.token).toBe(deriveStateToken(MASTER, NS, 'shared'));
    // The loser: no revision, no workers, no credentials on any path, and the reason on its status.
    expect(await revisions('second')).toEqual([]);
    expect([...scaled.keys()].filter((k) => k.startsWith(`${NS}/second`))).toEqual([]);
    expect(operator!.credentials((await store.get('Function', NS, 'second')) as OrreryFunction)).toBeUndefined();
    const blocked = await condition('second', 'ConfigurationsReady');
    expect(blocked).toMatchObject({ status: 'False', reason: 'state_keyspace_taken' });
    expect(blocked?.message).toContain(keyspaceTakenMessage(NS, 'shared', 'first'));
    expect(await condition('second', 'Ready')).toMatchObject({ status: 'False', reason: 'state_keyspace_taken' });

    // The owner goes: its deletion event re-enqueues the waiting Function (no resync runs).
    await store.delete('Function', NS, 'first');
    await expect.poll(() => revisions('second'), { timeout: 10_000 }).toEqual(['second-00001']);
    await settled();
    expect(scaled.get(`${NS}/second-00001`)?.at(-1)?.token).toBe(deriveStateToken(MASTER, NS, 'shared'));
    expect((await condition('second', 'ConfigurationsReady'))?.reason).not.toBe('state_keyspace_taken');
  });

  it('a running Function that comes to declare a taken keyspace loses its token; proceeds once the owner moves to another keyspace', { timeout: 60_000 }, async () => {
    await store.apply(fn('owner', 'carts'));
    await later();
    await store.apply(fn('late', 'late-own'));
    await expect.poll(() => scaled.get(`${NS}/late-00001`)?.at(-1)?.keyspace, { timeout: 10_000 }).toBe('late-own');

    await storedKeyspace('late', 'carts');
    // An update that keeps the (stored) keyspace passes the apply check and is an event.
    await store.apply(fn('late', 'carts', { touched: 'yes' }));
    await expect.poll(async () => (await condition('late', 'ConfigurationsReady'))?.reason, { timeout: 10_000 }).toBe('state_keyspace_taken');
    await settled();
    expect((await condition('late', 'ConfigurationsReady'))?.message).toContain(keyspaceTakenMessage(NS, 'carts', 'owner'));
    // Its workers are scaled without credentials from now on (the token was never the owner's).
    expect(scaled.get(`${NS}/late-00001`)?.at(-1)).toBeUndefined();
    expect(scaled.get(`${NS}/late-00001`)?.some((c) => c?.keyspace === 'carts')).toBe(false);

    // The owner moves away (a new keyspace nobody holds): `late` owns `carts` now.
    await store.apply(fn('owner', 'carts-v2'));
    await expect.poll(() => scaled.get(`${NS}/late-00001`)?.at(-1)?.token, { timeout: 10_000 }).toBe(deriveStateToken(MASTER, NS, 'carts'));
    await expect.poll(async () => (await condition('late', 'ConfigurationsReady'))?.reason, { timeout: 10_000 }).not.toBe('state_keyspace_taken');
    expect(scaled.get(`${NS}/owner-00001`)?.at(-1)?.token).toBe(deriveStateToken(MASTER, NS, 'carts-v2'));
  });
});

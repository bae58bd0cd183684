import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createTestDatabase } from '@orrery/db';
import { lookupSession, upsertUser } from '../auth/sessions.ts';
import { createHarness, fnManifest, rejection, type Harness } from '../testing/api-harness.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let h: Harness;

beforeAll(async () => {
  db = await createTestDatabase('orrery_api');
  h = await createHarness({}, connect({ url: db.url, max: 3 }));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

describe('audit log, users and sessions on real Postgres', () => {
  it('writes audit rows for success and refusal, readable through audit.list', async () => {
    await h.as('operator', 'pg-op').functions.applyManifest({ manifest: fnManifest('pgfn') });
    expect((await rejection(h.as('viewer', 'pg-viewer').functions.delete({ name: 'pgfn' }))).code).toBe('FORBIDDEN');
    const r = await h.as('viewer').audit.list({ target: 'default/pgfn' });
    expect(r.items.map((i) => [i.who, i.action, i.result])).toEqual([
      ['pg-viewer', 'functions.delete', 'error'],
      ['pg-op', 'functions.applyManifest', 'ok'],
    ]);
    expect(typeof r.items[0]!.at).toBe('string');
  });
  it('password login creates a hashed session that resolves to the user', async () => {
    await upsertUser(h.conn, 'pguser', 'operator', 'a-long-password');
    const s = await h.as(undefined).auth.login({ method: 'password', user: 'pguser', password: 'a-long-password' });
    expect(s).not.toHaveProperty('sessionId'); // only in the HttpOnly cookie
    const sessionId = /^orrery_session=([^;]+)/.exec(h.cookies.at(-1)!)![1]!;
    expect(await lookupSession(h.conn, sessionId, new Date())).toEqual({ who: 'pguser', role: 'operator', via: 'session' });
    const raw = await h.conn.pg!`select id_hash from orrery_sessions`;
    expect(raw.map((x) => x.id_hash)).not.toContain(sessionId);
    expect(await lookupSession(h.conn, sessionId, new Date(Date.now() + 24 * 3600_000))).toBeUndefined();
  });
});

/**
 * Issue 20 item 6 — filling the audit log and guessing passwords, attacked on a running
 * operator: a 1 MB anonymous (refused) call stores at most 8 KB of its input plus a marker;
 * the 11th bad login for a user within the window gets 429 with Retry-After (the 31st from one
 * address across user names); a tRPC batch of maxBatchSize + 1 calls gets a clear 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, httpRequest, passwordLogin, startAdminApi, trpc, type AdminApiProcess } from './testing/admin-api-process.ts';

const VERA = { name: 'vera', role: 'viewer' as const, password: 'viewer-password-1' };
const MAX_BATCH = 16;
let api: AdminApiProcess;

beforeAll(async () => {
  api = await startAdminApi({ users: [VERA] });
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

async function lastAuditRow(): Promise<{ action: string; who: string; bytes: number; input: Record<string, unknown> }> {
  const rows = await api.conn.pg!`select action, who, octet_length(input::text) as bytes, input from orrery_audit_log order by id desc limit 1`;
  return rows[0] as never;
}

describe('the audit log cannot be filled by anonymous callers', () => {
  it('a 1 MB anonymous mutation is refused and stores ≤ 8 KB of input with a truncation marker', async () => {
    // Many fields of 1,900 characters: nothing the redaction bounds (2,000 characters per string) cuts.
    const pad = Object.fromEntries(Array.from({ length: 540 }, (_, i) => [`f${i}`, 'A'.repeat(1900)]));
    const input = { manifest: { kind: 'Function', metadata: { name: 'flood' }, pad } };
    expect(JSON.stringify(input).length).toBeGreaterThan(1_000_000);
    const r = await trpc(api.url, 'functions.applyManifest', { mutation: true, input });
    expect(r.status).toBe(401);
    const row = await lastAuditRow();
    expect(row).toMatchObject({ action: 'functions.applyManifest', who: 'anonymous' });
    expect(row.bytes).toBeLessThanOrEqual(8 * 1024 + 100);
    expect(row.input.truncated).toBe(true);
    expect(row.input.bytes).toBeGreaterThan(1_000_000);
    expect(String(row.input.head)).toMatch(/^\{"manifest":\{"kind":"Function"/);
  });
});

// Every refused login verifies a password hash (a dummy one for unknown users, so timing says
// nothing): 21 in a row outlast vitest's 5 s default on a loaded machine.
describe('logins are rate-limited per user and per address', { timeout: 60_000 }, () => {
  it('the 11th bad password for a user within the window → 429 with Retry-After, even with the right password', async () => {
    for (let i = 1; i <= 10; i++) {
      const bad = await passwordLogin(api.url, VERA.name, `wrong-${i}`);
      expect(bad.answer.status, `attempt ${i}`).toBe(401);
    }
    const limited = await passwordLogin(api.url, VERA.name, 'wrong-11');
    expect(limited.answer.status).toBe(429);
    expect(errorCode(limited.answer)).toBe('TOO_MANY_REQUESTS');
    const retryAfter = Number(limited.answer.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // the right password does not get through either: the limit is no oracle
    const right = await passwordLogin(api.url, VERA.name, VERA.password);
    expect(right.answer.status).toBe(429);
    expect(right.cookie).toBeUndefined();
  });

  it('the same address trying other user names is stopped at its own limit (30 failures)', async () => {
    // 10 failures of this address are already counted above
    for (let i = 11; i <= 30; i++) expect((await passwordLogin(api.url, `nobody-${i}`, 'x')).answer.status, `attempt ${i}`).toBe(401);
    const limited = await passwordLogin(api.url, 'nobody-31', 'x');
    expect(limited.answer.status).toBe(429);
    expect(Number(limited.answer.headers['retry-after'])).toBeGreaterThan(0);
    const token = await trpc(api.url, 'auth.login', { mutation: true, input: { method: 'token', token: 'guess' } });
    expect(token.status).toBe(429); // admin token guesses count per address too
  });
});

describe('tRPC batches are bounded', () => {
  const batch = (n: number) => `${api.url}/trpc/${Array.from({ length: n }, () => 'auth.whoami').join(',')}?batch=1&input=${encodeURIComponent('{}')}`;
  it(`a batch of ${MAX_BATCH} calls is served`, async () => {
    const r = await httpRequest(batch(MAX_BATCH));
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(MAX_BATCH);
  });
  it(`a batch of ${MAX_BATCH + 1} calls → 400 batch_too_large, naming the limit`, async () => {
    const r = await httpRequest(batch(MAX_BATCH + 1));
    expect(r.status).toBe(400);
    expect(r.json?.error?.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'batch_too_large', maxBatchSize: MAX_BATCH });
    expect(r.json?.error?.message).toBe(`a batch may hold at most ${MAX_BATCH} calls; this one holds ${MAX_BATCH + 1}`);
  });
});

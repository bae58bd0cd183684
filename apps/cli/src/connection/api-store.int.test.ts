/**
 * `orrery apply|get|delete` through the admin API, as after `orrery up`: the real binary against
 * the real API handler over an embedded store and audit log. Every change is audited under
 * the caller; a wrong token or a viewer's session is refused with a message that says why.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliApi, type CliApiHarness } from '../testing/cli-api-harness.ts';

const EXAMPLES = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
let h: CliApiHarness;

beforeAll(async () => {
  h = await startCliApi();
}, 60_000);
afterAll(() => h.close());

describe('CLI through the admin API', () => {
  it('apply creates, get lists, delete deletes — each change in the audit log', { timeout: 60_000 }, async () => {
    const applied = await h.orrery(['apply', '-f', join(EXAMPLES, 'counter')]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('function.orrery.dev/counter created');
    expect((await h.orrery(['apply', '-f', join(EXAMPLES, 'counter')])).out).toContain('function.orrery.dev/counter unchanged');
    const got = await h.orrery(['get', 'functions']);
    expect(got.code, got.err).toBe(0);
    expect(got.out).toMatch(/counter/);
    const deleted = await h.orrery(['delete', 'function', 'counter']);
    expect(deleted.out).toContain('function.orrery.dev/counter deleted');
    expect(await h.store.get('Function', 'default', 'counter')).toBeUndefined();
    const rows = await h.audit();
    expect(rows.map((r) => `${r.action} ${r.target} ${r.result} ${r.who}`)).toEqual([
      'resources.applyManifest Function/default/counter ok admin-token',
      'resources.applyManifest Function/default/counter ok admin-token',
      'resources.delete Function/default/counter ok admin-token',
    ]);
  });

  it('a wrong token and a viewer session are refused with what to do', { timeout: 60_000 }, async () => {
    const wrong = await h.orrery(['apply', '-f', join(EXAMPLES, 'counter')], { ORRERY_API_TOKEN: 'not-the-token-at-all' });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/refused the token/);
    const refused = await h.orrery(['apply', '-f', join(EXAMPLES, 'counter')], { ORRERY_API_TOKEN: await h.session('vera', 'viewer') });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/role viewer may not do this; it needs operator/);
    expect(await h.store.get('Function', 'default', 'counter')).toBeUndefined();
  });

  it('an operator may apply but not delete (admin only)', { timeout: 60_000 }, async () => {
    const otto = await h.session('otto', 'operator');
    expect((await h.orrery(['apply', '-f', join(EXAMPLES, 'counter')], { ORRERY_API_TOKEN: otto })).code).toBe(0);
    const refused = await h.orrery(['delete', 'function', 'counter'], { ORRERY_API_TOKEN: otto });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/role operator may not do this; it needs admin/);
    expect(await h.store.get('Function', 'default', 'counter')).toBeDefined();
  });

  it('an API that does not answer says where it looked', { timeout: 30_000 }, async () => {
    const r = await h.orrery(['get', 'functions'], { ORRERY_API_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/admin API at http:\/\/127\.0\.0\.1:1 did not answer/);
  });
});

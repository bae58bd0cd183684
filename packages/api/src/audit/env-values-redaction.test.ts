/**
 * Issue 20 item 5 through the real tRPC router over a PGlite store: plain env values are never in
 * an audit row, nor in a viewer's answer (any procedure that returns Functions or Revisions);
 * operators and admins, who may edit them, still read them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, fnManifest, type Harness } from '../testing/api-harness.ts';

let h: Harness;
const PASSWORD = 'hunter2-do-not-show';
const env = [
  { name: 'DB_PASSWORD', value: PASSWORD },
  { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } },
];

beforeAll(async () => {
  h = await createHarness();
  await h.as('operator').functions.applyManifest({ manifest: fnManifest('shop', undefined, {}) });
  const cur = await h.as('operator').functions.get({ namespace: 'default', name: 'shop' });
  await h.as('operator').functions.applyManifest({
    manifest: { ...fnManifest('shop'), spec: { ...cur.spec, template: { ...cur.spec.template, env } } },
  });
  // Revisions are the operator's to create (through the store, not the API).
  await h.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name: 'shop-00009', namespace: 'default', labels: { 'orrery.dev/function': 'shop' } }, spec: { function: 'shop', template: { source: { inline: 'x' }, env } } }, { allowCreateOnlyKinds: true });
});
afterAll(async () => h?.close());

describe('env values', () => {
  it('never reach an audit row (input, before or after), while Secret references do', async () => {
    const rows = JSON.stringify(await h.audit());
    expect(rows).not.toContain(PASSWORD);
    expect(rows).toContain('[redacted]');
    expect(rows).toContain('shop-keys');
  });

  it("are redacted in a viewer's answers, from every procedure that returns Functions or Revisions", async () => {
    const v = h.as('viewer');
    const answers = [
      await v.functions.get({ namespace: 'default', name: 'shop' }),
      await v.functions.list({ namespace: 'default' }),
      await v.functions.revisions({ namespace: 'default', name: 'shop' }),
      await v.resources.get({ kind: 'Function', namespace: 'default', name: 'shop' }),
      await v.resources.list({ kind: 'Function' }),
      await v.resources.list({ kind: 'Revision' }),
      await v.resources.get({ kind: 'Revision', namespace: 'default', name: 'shop-00009' }),
    ];
    for (const a of answers) {
      const text = JSON.stringify(a);
      expect(text).not.toContain(PASSWORD);
      expect(text).toContain('"name":"DB_PASSWORD","value":"[redacted]"');
      expect(text).toMatch(/"secretKeyRef":{("name":"shop-keys","key":"api-key"|"key":"api-key","name":"shop-keys")}/);
    }
  });

  it('are shown to operators and admins (they may edit them)', async () => {
    for (const role of ['operator', 'admin'] as const) {
      const fn = await h.as(role).functions.get({ namespace: 'default', name: 'shop' });
      expect(fn.spec.template.env).toContainEqual({ name: 'DB_PASSWORD', value: PASSWORD });
    }
    // …and the store keeps the value the function runs with.
    expect(JSON.stringify(await h.store.get('Function', 'default', 'shop'))).toContain(PASSWORD);
  });
});

import { describe, expect, it } from 'vitest';
import { canaryForms, describeFindings, findCanaries, MIN_CANARY_LENGTH } from './canary-scan.ts';

const STORE = { name: 'store token', value: 'canary-store-7f3e1b9a' };
const REDIS = { name: 'Redis password', value: 'canary/redis+pw=42' };

describe('findCanaries', () => {
  it('finds nothing in clean sources', () => {
    expect(findCanaries([STORE, REDIS], [{ where: 'a.log', text: 'routes loaded\nstore token ***\n' }])).toEqual([]);
  });

  it('names the canary, the source, the line and how often, with the value masked in the excerpt', () => {
    const text = ['{"msg":"starting"}', `{"msg":"auth Bearer ${STORE.value} refused, again ${STORE.value}"}`, 'done'].join('\n');
    const [f, ...rest] = findCanaries([STORE, REDIS], [{ where: 'logs/operator.log', text }]);
    expect(rest).toEqual([]);
    expect(f).toEqual({
      canary: 'store token',
      form: 'as is',
      where: 'logs/operator.log',
      line: 2,
      occurrences: 2,
      excerpt: '{"msg":"auth Bearer <canary:store token> refused, again <canary:store token>"}',
    });
  });

  it('finds the URL-encoded and base64 forms too (a password in a URL, a Secret\'s data)', () => {
    const url = `redis://:${encodeURIComponent(REDIS.value)}@127.0.0.1:6379`;
    const secretData = `data:\n  token: ${Buffer.from(STORE.value).toString('base64')}\n`;
    const found = findCanaries([STORE, REDIS], [{ where: 'cmdline', text: url }, { where: 'Secret x', text: secretData }]);
    expect(found.map((f) => [f.canary, f.form, f.where, f.line])).toEqual([
      ['Redis password', 'URL-encoded', 'cmdline', 1],
      ['store token', 'base64', 'Secret x', 2],
    ]);
    expect(describeFindings(found)).not.toContain(encodeURIComponent(REDIS.value));
  });

  it('keeps excerpts short and never shows a canary cut at their edge', () => {
    const long = `${'x'.repeat(200)} ${REDIS.value} ${'y'.repeat(55)}${STORE.value}${'z'.repeat(200)}`;
    const found = findCanaries([STORE, REDIS], [{ where: 'big', text: long }]);
    expect(found).toHaveLength(2);
    for (const f of found) {
      expect(f.excerpt.length).toBeLessThan(200);
      expect(f.excerpt).not.toMatch(/canary-store|canary\/redis/);
    }
    expect(found.find((f) => f.canary === 'Redis password')!.excerpt).toMatch(/^…x+ <canary:Redis password> y+<can…$/);
  });

  it('refuses canaries that could match by chance, span lines or share a name', () => {
    expect(() => findCanaries([{ name: 'short', value: 'a'.repeat(MIN_CANARY_LENGTH - 1) }], [])).toThrow(/at least 12/);
    expect(() => findCanaries([{ name: 'nl', value: 'canary-line-1\ncanary-line-2' }], [])).toThrow(/spans lines/);
    expect(() => findCanaries([STORE, { ...STORE }], [])).toThrow(/two canaries are named "store token"/);
  });
});

describe('canaryForms', () => {
  it('lists the URL-encoded form only when it differs', () => {
    expect(canaryForms(STORE.value).map((f) => f.form)).toEqual(['as is', 'base64']);
    expect(canaryForms(REDIS.value).map((f) => f.form)).toEqual(['as is', 'URL-encoded', 'base64']);
  });
});

describe('describeFindings', () => {
  it('one line per finding, with the count when it repeats', () => {
    const found = findCanaries([STORE], [{ where: 'a', text: `${STORE.value} ${STORE.value}` }, { where: 'b', text: `\n${STORE.value}` }]);
    expect(describeFindings(found).split('\n')).toEqual([
      'store token (as is) in a line 1 (2 times): <canary:store token> <canary:store token>',
      'store token (as is) in b line 2: <canary:store token>',
    ]);
  });
});

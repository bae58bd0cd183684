import { describe, expect, it } from 'vitest';
import { RouterHotKeysResponseSchema } from '@orrery/spec';
import { keyHashOf } from './hot-key-owner.ts';
import { bearerMatches, hotKeysRoute } from './hot-keys-route.ts';
import { StickyHotKeys } from './sticky-hot-keys.ts';

const hk = new StickyHotKeys({ capacity: 4 }, () => 0);
for (const k of ['a', 'a', 'b']) {
  const h = keyHashOf(k);
  hk.observe('default', 'cart', k, h.hi, h.lo, false);
}
const ctx = { routerId: 'r1', owner: () => null, hash: keyHashOf };

describe('bearerMatches', () => {
  it('matches only the exact bearer', () => {
    expect(bearerMatches('Bearer s3cret', 's3cret')).toBe(true);
    for (const h of ['Bearer s3cre', 'Bearer s3cret ', 'bearer s3cret', 's3cret', 'Basic s3cret', '', undefined, ['Bearer s3cret']]) expect(bearerMatches(h, 's3cret')).toBe(false);
  });
});

describe('hotKeysRoute', () => {
  it('with a token: 401 without it or with a wrong one, the keys with it', () => {
    const withToken = { ...ctx, token: 'tok' };
    for (const authorization of [undefined, 'Bearer nope', 'tok']) {
      const a = hotKeysRoute(hk, { query: '', authorization }, withToken);
      expect(a.status).toBe(401);
      expect(JSON.stringify(a.body)).not.toContain('"a"');
    }
    const ok = hotKeysRoute(hk, { query: '', authorization: 'Bearer tok' }, withToken);
    expect(ok.status).toBe(200);
    const body = RouterHotKeysResponseSchema.parse(ok.body);
    expect(body.routerId).toBe('r1');
    expect(body.functions[0]!.keys.map((k) => k.key)).toEqual(['a', 'b']);
  });

  it('without a token (standalone) it answers anyone', () => {
    expect(hotKeysRoute(hk, { query: '', authorization: undefined }, ctx).status).toBe(200);
  });

  it('filters by namespace, function and limit; refuses bad parameters with 400', () => {
    const get = (query: string) => hotKeysRoute(hk, { query, authorization: undefined }, ctx);
    const one = get('namespace=default&function=cart&limit=1');
    expect(one.status === 200 && one.body.functions[0]!.keys.length).toBe(1);
    const none = get('function=other');
    expect(none.status === 200 && none.body.functions).toEqual([]);
    for (const q of ['limit=0', 'limit=51', 'limit=x', 'namespace=Bad', 'function=' + 'a'.repeat(64), 'function=a%00']) {
      const a = get(q);
      expect(a.status, q).toBe(400);
      expect(a.body).toMatchObject({ code: 'bad_request' });
    }
  });
});

import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hotKeyHasher, stateKeyScope, stickyKeyScope } from './hot-key-id.ts';

const master = Buffer.alloc(32, 7);

describe('hotKeyHasher', () => {
  it('is HMAC-SHA256 keyed by HKDF(master, "v1:hot-key-id") over scope ‖ 0x00 ‖ key, 64 bits in hex (known answer)', () => {
    const secret = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'v1:hot-key-id', 32));
    const expected = `h:${createHmac('sha256', secret).update('state:default/cart\0cart/alice').digest('hex').slice(0, 16)}`;
    expect(hotKeyHasher(master)(stateKeyScope('default', 'cart'), 'cart/alice')).toBe(expected);
  });

  it('is stable, tells keys and scopes apart, and is not the unkeyed hash a dictionary would try', () => {
    const h = hotKeyHasher(master);
    const id = h(stateKeyScope('default', 'cart'), 'alice');
    expect(id).toMatch(/^h:[0-9a-f]{16}$/);
    expect(hotKeyHasher(master)(stateKeyScope('default', 'cart'), 'alice')).toBe(id);
    expect(h(stateKeyScope('default', 'cart'), 'bob')).not.toBe(id);
    expect(h(stateKeyScope('default', 'other'), 'alice')).not.toBe(id);
    expect(h(stickyKeyScope('default', 'cart'), 'alice')).not.toBe(id);
    expect(id.slice(2)).not.toBe(createHash('sha256').update('alice').digest('hex').slice(0, 16));
    expect(hotKeyHasher(Buffer.alloc(32, 8))(stateKeyScope('default', 'cart'), 'alice')).not.toBe(id);
  });

  it('without a master key: a per-process secret, stable within the process', () => {
    const a = hotKeyHasher(undefined)('s', 'k');
    expect(hotKeyHasher(undefined)('s', 'k')).toBe(a);
    expect(a).not.toBe(hotKeyHasher(master)('s', 'k'));
  });
});

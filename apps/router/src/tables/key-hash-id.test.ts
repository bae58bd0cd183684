import { describe, expect, it } from 'vitest';
import { fnv1a64 } from '../admit/fnv1a64.ts';
import { functionKeyOf, keyHashHex, stickyEntityId } from './key-hash-id.ts';

describe('sticky key entity ids', () => {
  it('are the function key and 16 lower-case hex digits of the key hash, zero-padded', () => {
    expect(keyHashHex(0, 0)).toBe('0000000000000000');
    expect(keyHashHex(0xcbf29ce4, 0x84222325)).toBe('cbf29ce484222325');
    expect(keyHashHex(0x1, 0xabc)).toBe('0000000100000abc');
    expect(keyHashHex(-1, -1)).toBe('ffffffffffffffff'); // signed int32 inputs read as unsigned
    expect(stickyEntityId('default/cart', 0x1, 0x2)).toBe('default/cart#0000000100000002');
    expect(() => stickyEntityId('', 1, 2)).toThrow(/functionKey/);
  });

  it('match the FNV-1a-64 of the key as docs/architecture.md "Hashing" pins it', () => {
    const h = fnv1a64(new TextEncoder().encode('alice'));
    expect(stickyEntityId('default/cart', Number(h >> 32n), Number(h & 0xffffffffn))).toBe(`default/cart#${h.toString(16).padStart(16, '0')}`);
  });

  it('give their function back, and nothing for malformed ids', () => {
    expect(functionKeyOf('default/cart#0000000100000002')).toBe('default/cart');
    expect(functionKeyOf('a#b#0000000100000002')).toBe('a#b');
    for (const bad of ['default/cart#7', 'default/cart', '#0000000100000002', 'x#000000010000000G']) expect(functionKeyOf(bad)).toBeUndefined();
  });
});

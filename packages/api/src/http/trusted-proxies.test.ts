import { describe, expect, it } from 'vitest';
import { normalizeAddress, parseAddress, parseTrustedProxies } from './trusted-proxies.ts';

describe('parseTrustedProxies', () => {
  it('trusts nobody by default', () => {
    for (const spec of [undefined, '', ' , ', []]) {
      const t = parseTrustedProxies(spec);
      expect(t.entries).toEqual([]);
      expect(t.has('127.0.0.1')).toBe(false);
    }
  });
  it('single addresses, v4 and v6, and their mapped forms', () => {
    const t = parseTrustedProxies('10.1.2.3, fd00::7');
    expect(t.entries).toEqual(['10.1.2.3', 'fd00::7']);
    expect(t.has('10.1.2.3')).toBe(true);
    expect(t.has('::ffff:10.1.2.3')).toBe(true);
    expect(t.has('10.1.2.4')).toBe(false);
    expect(t.has('fd00:0:0:0:0:0:0:7')).toBe(true);
    expect(t.has('fd00::8')).toBe(false);
    expect(t.has(undefined)).toBe(false);
    expect(t.has('not-an-ip')).toBe(false);
  });
  it('CIDR ranges', () => {
    const t = parseTrustedProxies(['10.0.0.0/8', '192.168.1.128/25', 'fd00::/8', '0.0.0.0/0']);
    expect(t.has('10.255.255.255')).toBe(true);
    expect(t.has('192.168.1.200')).toBe(true);
    expect(t.has('fdff::1')).toBe(true);
    expect(t.has('fe00::1')).toBe(false);
    expect(t.has('8.8.8.8')).toBe(true); // 0.0.0.0/0: every v4 address, no v6
    expect(t.has('2001:db8::1')).toBe(false);
    const narrow = parseTrustedProxies('192.168.1.128/25');
    expect(narrow.has('192.168.1.127')).toBe(false);
    expect(narrow.has('192.168.1.128')).toBe(true);
  });
  it('"loopback" is 127.0.0.0/8 and ::1', () => {
    const t = parseTrustedProxies('loopback');
    expect(t.has('127.0.0.1')).toBe(true);
    expect(t.has('127.9.9.9')).toBe(true);
    expect(t.has('::1')).toBe(true);
    expect(t.has('::ffff:127.0.0.1')).toBe(true);
    expect(t.has('::2')).toBe(false);
    expect(t.has('128.0.0.1')).toBe(false);
  });
  it.each(['example.com', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/8', 'fd00::/129', '1.2.3', '10.0.0.0/-1', '10.0.0.0/x', 'localhost'])('refuses %j with a clear message', (bad) => {
    expect(() => parseTrustedProxies(bad)).toThrow(/is not an address, a CIDR range .* or "loopback"/);
  });
});

describe('addresses', () => {
  it('normalize mapped v4 and zone ids', () => {
    expect(normalizeAddress('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeAddress('::FFFF:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeAddress(' 10.0.0.1 ')).toBe('10.0.0.1');
  });
  it('parse to numbers', () => {
    expect(parseAddress('0.0.0.1')).toEqual({ v6: false, value: 1n });
    expect(parseAddress('::1')).toEqual({ v6: true, value: 1n });
    expect(parseAddress('1::')).toEqual({ v6: true, value: 1n << 112n });
    expect(parseAddress('::ffff:0:1.2.3.4')?.value).toBe(parseAddress('::ffff:0:102:304')?.value);
    expect(parseAddress('nope')).toBeUndefined();
  });
});

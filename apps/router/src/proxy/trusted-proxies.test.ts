import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIp, TrustedProxies } from './trusted-proxies.ts';

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);

describe('parseIp', () => {
  it('IPv4 as IPv4-mapped IPv6', () => {
    expect(hex(parseIp('10.1.2.3'))).toBe('00000000000000000000ffff0a010203');
    expect(hex(parseIp('0.0.0.0'))).toBe('00000000000000000000ffff00000000');
    expect(hex(parseIp('255.255.255.255'))).toBe('00000000000000000000ffffffffffff');
  });

  it('IPv6, compressed, with an embedded IPv4, with a zone', () => {
    expect(hex(parseIp('::'))).toBe('0'.repeat(32));
    expect(hex(parseIp('::1'))).toBe(`${'0'.repeat(31)}1`);
    expect(hex(parseIp('2001:db8::ff00:42:8329'))).toBe('20010db8000000000000ff0000428329');
    expect(hex(parseIp('2001:DB8:0:0:0:ff00:42:8329'))).toBe('20010db8000000000000ff0000428329');
    expect(hex(parseIp('1::'))).toBe(`0001${'0'.repeat(28)}`);
    expect(hex(parseIp('::ffff:10.1.2.3'))).toBe(hex(parseIp('10.1.2.3')));
    expect(hex(parseIp('0:0:0:0:0:ffff:10.1.2.3'))).toBe(hex(parseIp('10.1.2.3')));
    expect(hex(parseIp('fe80::1%eth0'))).toBe(`fe80${'0'.repeat(27)}1`);
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', 'x', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.-1', ' 1.2.3.4', '1.2.3.4 ', '::1::', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', 'g::1', '12345::', ':1', '1:', '[::1]', '1.2.3.4::', '%eth0', '1.2.3.4:80', 'unknown', '::ffff:1.2.3']) {
      expect(parseIp(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('agrees with node:net isIP on generated addresses', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (a) => {
        expect(parseIp(a)).toBeDefined();
        expect(isIP(a)).not.toBe(0);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('0', '1', 'f', ':', '.', 'g', '%', '9'), maxLength: 20 }), (s) => {
        // Never accept what node refuses (node also takes leading-zero IPv4 parts and zones, which may differ).
        if (parseIp(s) !== undefined) expect(isIP(s.split('%')[0]!), s).not.toBe(0);
      }),
    );
  });
});

describe('TrustedProxies', () => {
  it('matches CIDR blocks and bare addresses, IPv4 also in its mapped form', () => {
    const t = TrustedProxies.parse('10.0.0.0/8, 192.168.1.5,fd00::/8,::1,172.16.0.0/12');
    expect(t.entries).toEqual(['10.0.0.0/8', '192.168.1.5/32', 'fd00::/8', '::1/128', '172.16.0.0/12']);
    for (const yes of ['10.0.0.0', '10.255.255.255', '::ffff:10.1.2.3', '192.168.1.5', '::ffff:192.168.1.5', 'fd12:3456::1', '::1', '172.16.0.1', '172.31.255.255']) expect(t.contains(yes), yes).toBe(true);
    for (const no of ['11.0.0.1', '9.255.255.255', '192.168.1.4', '192.168.1.6', 'fe00::1', '::2', '172.32.0.0', '127.0.0.1', '', 'garbage', '10.0.0.1:80']) expect(t.contains(no), no).toBe(false);
    // cached answers are the same
    expect(t.contains('10.9.9.9')).toBe(true);
    expect(t.contains('10.9.9.9')).toBe(true);
    expect(t.contains('11.9.9.9')).toBe(false);
  });

  it('prefix lengths that do not fall on a byte', () => {
    const t = TrustedProxies.parse('10.0.0.128/25,2001:db8::/33');
    expect(t.contains('10.0.0.128')).toBe(true);
    expect(t.contains('10.0.0.255')).toBe(true);
    expect(t.contains('10.0.0.127')).toBe(false);
    expect(t.contains('2001:db8:7fff::1')).toBe(true);
    expect(t.contains('2001:db8:8000::1')).toBe(false);
  });

  it('/0 trusts every address of that family', () => {
    const v4 = TrustedProxies.parse('0.0.0.0/0');
    expect(v4.contains('1.2.3.4')).toBe(true);
    expect(v4.contains('::ffff:1.2.3.4')).toBe(true);
    expect(v4.contains('2001::1')).toBe(false);
    expect(TrustedProxies.parse('::/0').contains('2001::1')).toBe(true);
  });

  it('refuses entries that are not addresses or blocks', () => {
    for (const bad of ['', ',', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/a', 'localhost', '10.0.0.0/8,bogus', '10.0.0.0/-1', '1.2.3.4/8/8']) {
      expect(() => TrustedProxies.parse(bad), bad).toThrow(/--trusted-proxies/);
    }
  });

  it('the cache stays bounded under many distinct addresses', () => {
    const t = TrustedProxies.parse('10.0.0.0/8');
    for (let i = 0; i < 10_000; i++) expect(t.contains(`10.0.${i >> 8 & 255}.${i & 255}`)).toBe(true);
    expect((t as unknown as { cache: Map<string, boolean> }).cache.size).toBeLessThanOrEqual(4096);
  });
});

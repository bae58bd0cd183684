import { describe, expect, it } from 'vitest';
import { hostNames, networkNames, octetOf } from './netns-names.ts';

describe('netns names', () => {
  it('derives bridge, namespace, veth and addresses from the subnet octet', () => {
    expect(networkNames(37)).toEqual({ octet: 37, bridge: 'oeb37', hostAddress: '10.251.37.1', prefixLength: 24 });
    expect(hostNames(37, 0, 'm1')).toEqual({ netns: 'oetcd-37-m1', hostVeth: 'oev37-0', address: '10.251.37.10' });
    expect(hostNames(254, 199, 'registry-minority')).toEqual({ netns: 'oetcd-254-registry-minority', hostVeth: 'oev254-199', address: '10.251.254.209' });
  });

  it('keeps interface names within 15 characters for every octet and slot', () => {
    for (const octet of [1, 99, 254]) {
      expect(networkNames(octet).bridge.length).toBeLessThanOrEqual(15);
      for (const slot of [0, 9, 199]) expect(hostNames(octet, slot, 'm1').hostVeth.length).toBeLessThanOrEqual(15);
    }
  });

  it('refuses octets, slots and participant names it cannot encode', () => {
    expect(() => networkNames(0)).toThrow(/1\.\.254/);
    expect(() => networkNames(255)).toThrow(/1\.\.254/);
    expect(() => hostNames(1, 200, 'm1')).toThrow(/0\.\.199/);
    expect(() => hostNames(1, 0, 'M1')).toThrow(/must match/);
    expect(() => hostNames(1, 0, 'a/b')).toThrow(/must match/);
  });

  it('traces our names back to their octet and ignores everyone else’s', () => {
    expect(octetOf('oetcd-37-m1')).toBe(37);
    expect(octetOf('oetcd-37-registry-a')).toBe(37);
    expect(octetOf('oeb254')).toBe(254);
    expect(octetOf('oev12-3')).toBe(12);
    for (const other of ['okube-1234567890', 'okv1234', 'okube0', 'eth0', 'oeb', 'oebx', 'oev12', 'oetcd-', 'oetcd-x-m1', 'oeb300', 'oeb0']) {
      expect(octetOf(other), other).toBeUndefined();
    }
  });
});

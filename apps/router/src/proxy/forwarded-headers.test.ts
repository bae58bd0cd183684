import { describe, expect, it } from 'vitest';
import { appendForwardedHeaders, clientAddress, forwardedNode, forwardedValue, plainAddress, type IncomingForwarding } from './forwarded-headers.ts';
import { TrustedProxies } from './trusted-proxies.ts';

const none: IncomingForwarding = { forwardedFor: undefined, forwardedProto: undefined, forwardedHost: undefined, forwarded: undefined, realIp: undefined };
const spoofed: IncomingForwarding = {
  forwardedFor: '6.6.6.6, 7.7.7.7',
  forwardedProto: 'https',
  forwardedHost: 'evil.example',
  forwarded: 'for=6.6.6.6;proto=https',
  realIp: '6.6.6.6',
};

function headers(peer: string, host: string | undefined, incoming: IncomingForwarding, trusted?: TrustedProxies): Record<string, string> {
  const out: string[] = ['x-keep', 'me'];
  appendForwardedHeaders(out, peer, host, incoming, trusted);
  expect(out.slice(0, 2)).toEqual(['x-keep', 'me']);
  const o: Record<string, string> = {};
  for (let i = 2; i < out.length; i += 2) {
    expect(o[out[i]!], `${out[i]} twice`).toBeUndefined();
    o[out[i]!] = out[i + 1]!;
  }
  return o;
}

describe('the pieces', () => {
  it('plainAddress unmaps IPv4-mapped IPv6 only', () => {
    expect(plainAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(plainAddress('10.1.2.3')).toBe('10.1.2.3');
    expect(plainAddress('::1')).toBe('::1');
    expect(plainAddress('::ffff:a01:203')).toBe('::ffff:a01:203');
    expect(plainAddress('')).toBe('');
  });

  it('forwardedNode and forwardedValue follow RFC 7239', () => {
    expect(forwardedNode('10.1.2.3')).toBe('10.1.2.3');
    expect(forwardedNode('2001:db8::1')).toBe('"[2001:db8::1]"');
    expect(forwardedNode('')).toBe('unknown');
    expect(forwardedValue('example.test')).toBe('example.test');
    expect(forwardedValue('example.test:8080')).toBe('"example.test:8080"');
    expect(forwardedValue('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(forwardedValue('')).toBe('""');
  });
});

describe('appendForwardedHeaders without trusted proxies (the router is the edge)', () => {
  it('sets every forwarding header from the peer, whatever the client claimed', () => {
    const expected = {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'shop.example:8080',
      forwarded: 'for=203.0.113.9;host="shop.example:8080";proto=http',
      'x-real-ip': '203.0.113.9',
    };
    expect(headers('203.0.113.9', 'shop.example:8080', none)).toEqual(expected);
    expect(headers('203.0.113.9', 'shop.example:8080', spoofed)).toEqual(expected);
    expect(headers('::ffff:203.0.113.9', 'shop.example:8080', spoofed)).toEqual(expected);
  });

  it("the element built for one request is never another's: each of peer, Host and proto changes it", () => {
    const element = (peer: string, host: string | undefined, tls: boolean): string => {
      const out: string[] = [];
      appendForwardedHeaders(out, peer, host, none, undefined, tls);
      return out[out.indexOf('forwarded') + 1]!;
    };
    expect(element('10.0.0.1', 'a.example', false)).toBe('for=10.0.0.1;host=a.example;proto=http');
    expect(element('10.0.0.1', 'a.example', false)).toBe('for=10.0.0.1;host=a.example;proto=http');
    expect(element('10.0.0.2', 'a.example', false)).toBe('for=10.0.0.2;host=a.example;proto=http');
    expect(element('10.0.0.2', 'b.example', false)).toBe('for=10.0.0.2;host=b.example;proto=http');
    expect(element('10.0.0.2', 'b.example', true)).toBe('for=10.0.0.2;host=b.example;proto=https');
    expect(element('10.0.0.2', undefined, true)).toBe('for=10.0.0.2;proto=https');
    expect(element('10.0.0.2', 'b.example', true)).toBe('for=10.0.0.2;host=b.example;proto=https');
  });

  it('IPv6 peers and a missing Host', () => {
    expect(headers('2001:db8::7', undefined, none)).toEqual({
      'x-forwarded-for': '2001:db8::7',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': '',
      forwarded: 'for="[2001:db8::7]";proto=http',
      'x-real-ip': '2001:db8::7',
    });
  });

  it('a peer outside the trusted list is treated like no list at all', () => {
    const trusted = TrustedProxies.parse('10.0.0.0/8');
    expect(headers('203.0.113.9', 'h', spoofed, trusted)).toEqual(headers('203.0.113.9', 'h', none));
  });
});

describe('appendForwardedHeaders from a trusted proxy', () => {
  const trusted = TrustedProxies.parse('10.0.0.0/8,::1');

  it('appends to X-Forwarded-For and Forwarded, keeps the proxy proto and host, finds the client', () => {
    expect(headers('10.0.0.2', 'shop.example', { ...none, forwardedFor: '198.51.100.4', forwardedProto: 'https', forwardedHost: 'shop.example', forwarded: 'for=198.51.100.4;proto=https' }, trusted)).toEqual({
      'x-forwarded-for': '198.51.100.4, 10.0.0.2',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'shop.example',
      forwarded: 'for=198.51.100.4;proto=https, for=10.0.0.2;host=shop.example;proto=http',
      'x-real-ip': '198.51.100.4',
    });
  });

  it('a proxy that sent nothing: the peer is the client', () => {
    expect(headers('::ffff:10.0.0.2', 'h', none, trusted)).toEqual({
      'x-forwarded-for': '10.0.0.2',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'h',
      forwarded: 'for=10.0.0.2;host=h;proto=http',
      'x-real-ip': '10.0.0.2',
    });
  });

  it('only http or https is believed as the proto, first element of a list', () => {
    expect(headers('10.0.0.2', 'h', { ...none, forwardedProto: 'HTTPS, http' }, trusted)['x-forwarded-proto']).toBe('https');
    expect(headers('10.0.0.2', 'h', { ...none, forwardedProto: 'javascript' }, trusted)['x-forwarded-proto']).toBe('http');
    expect(headers('10.0.0.2', 'h', { ...none, forwardedProto: '' }, trusted)['x-forwarded-proto']).toBe('http');
  });

  it('the X-Real-IP the proxy sent is never taken as is', () => {
    expect(headers('10.0.0.2', 'h', { ...none, realIp: '6.6.6.6' }, trusted)['x-real-ip']).toBe('10.0.0.2');
  });
});

describe('clientAddress', () => {
  const trusted = TrustedProxies.parse('10.0.0.0/8,2001:db8::/32');
  it('walks X-Forwarded-For from the right past trusted hops', () => {
    expect(clientAddress(undefined, '10.0.0.1', trusted)).toBe('10.0.0.1');
    expect(clientAddress('1.1.1.1', '10.0.0.1', trusted)).toBe('1.1.1.1');
    expect(clientAddress('6.6.6.6, 1.1.1.1, 10.0.0.5', '10.0.0.1', trusted)).toBe('1.1.1.1');
    expect(clientAddress('10.0.0.9, 10.0.0.5', '10.0.0.1', trusted)).toBe('10.0.0.9'); // all trusted: the leftmost
    expect(clientAddress('1.1.1.1', '8.8.8.8', trusted)).toBe('8.8.8.8'); // untrusted peer: itself
  });

  it('accepts bracketed IPv6, ports and IPv4-mapped forms', () => {
    expect(clientAddress('[2001:db9::1]:443, [2001:db8::5]', '10.0.0.1', trusted)).toBe('2001:db9::1');
    expect(clientAddress('1.1.1.1:5555', '10.0.0.1', trusted)).toBe('1.1.1.1');
    expect(clientAddress('::ffff:1.1.1.1', '10.0.0.1', trusted)).toBe('1.1.1.1');
    expect(clientAddress('2001:db9::1', '10.0.0.1', trusted)).toBe('2001:db9::1');
  });

  it('stops at the last trusted hop when an element is not an address', () => {
    expect(clientAddress('1.1.1.1, unknown, 10.0.0.5', '10.0.0.1', trusted)).toBe('10.0.0.5');
    expect(clientAddress('garbage', '10.0.0.1', trusted)).toBe('10.0.0.1');
    expect(clientAddress('', '10.0.0.1', trusted)).toBe('10.0.0.1');
    expect(clientAddress('[::1', '10.0.0.1', trusted)).toBe('10.0.0.1');
  });
});

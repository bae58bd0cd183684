import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '@orrery/api/http-guards';
import { judgeConsoleRequest, withSecure, type ConsoleVerdict } from './console-request.ts';

const config = { trusted: parseTrustedProxies('10.0.0.0/8'), publicOrigins: ['https://console.example'] };
const CLIENT = { address: '203.0.113.5', tls: false };
const judge = (method: string, headers: Record<string, string>, peer: { address: string; tls: boolean } | null = CLIENT): ConsoleVerdict =>
  judgeConsoleRequest({ method, headers: new Headers(headers), peer: peer ?? undefined }, config);
const ok = (v: ConsoleVerdict) => {
  if (v.refuse) throw new Error(`refused: ${v.refuse.body}`);
  return v;
};

describe('judgeConsoleRequest', () => {
  it('a same-origin JSON POST passes; the client is who the console saw, over http', () => {
    const v = ok(judge('POST', { host: 'c:3000', origin: 'http://c:3000', 'content-type': 'application/json', 'x-forwarded-for': '6.6.6.6', 'x-forwarded-proto': 'https' }));
    expect(v).toEqual({ secure: false, forward: { 'x-forwarded-proto': 'http', 'x-forwarded-for': '203.0.113.5' } });
  });
  it('through a trusted proxy: its scheme, client address and host count', () => {
    const v = ok(judge('POST', { host: 'internal:3000', origin: 'https://public.example', 'x-forwarded-host': 'public.example', 'content-type': 'application/json', 'x-forwarded-for': '6.6.6.6, 198.51.100.9', 'x-forwarded-proto': 'https' }, { address: '10.1.2.3', tls: false }));
    expect(v).toEqual({ secure: true, forward: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.9' } });
  });
  it('TLS on the connection is https', () => {
    expect(ok(judge('GET', {}, { address: '203.0.113.5', tls: true })).secure).toBe(true);
  });
  it('an unknown peer (no console server in front) trusts nothing and forwards no address', () => {
    expect(ok(judge('GET', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '6.6.6.6' }, null))).toEqual({ secure: false, forward: { 'x-forwarded-proto': 'http' } });
  });
  it('a POST from another origin → 403 cross_origin; a configured public origin passes', () => {
    const v = judge('POST', { host: 'c:3000', origin: 'https://evil.example', 'content-type': 'application/json' });
    expect(v.refuse?.status).toBe(403);
    expect(JSON.parse(v.refuse!.body).error.data).toMatchObject({ code: 'FORBIDDEN', reason: 'cross_origin' });
    expect(judge('POST', { host: 'c:3000', origin: 'https://console.example', 'content-type': 'application/json' }).refuse).toBeUndefined();
    expect(judge('POST', { host: 'c:3000', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }).refuse?.status).toBe(403);
  });
  it('X-Forwarded-Host from an untrusted peer does not make another origin this one', () => {
    expect(judge('POST', { host: 'c:3000', 'x-forwarded-host': 'evil.example', origin: 'http://evil.example', 'content-type': 'application/json' }).refuse?.status).toBe(403);
  });
  it('a POST that is not JSON → 415; a GET needs no content type', () => {
    const v = judge('POST', { host: 'c:3000', origin: 'http://c:3000', 'content-type': 'multipart/form-data; boundary=x' });
    expect(v.refuse?.status).toBe(415);
    expect(JSON.parse(v.refuse!.body).error.data.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(judge('GET', { host: 'c:3000', origin: 'https://evil.example' }).refuse).toBeUndefined();
  });
});

describe('withSecure', () => {
  it('adds Secure over https, once', () => {
    expect(withSecure('orrery_session=x; Path=/; HttpOnly', true)).toBe('orrery_session=x; Path=/; HttpOnly; Secure');
    expect(withSecure('orrery_session=x; Path=/; Secure', true)).toBe('orrery_session=x; Path=/; Secure');
    expect(withSecure('orrery_session=x; secure; HttpOnly', true)).toBe('orrery_session=x; secure; HttpOnly');
    expect(withSecure('orrery_session=x; Path=/', false)).toBe('orrery_session=x; Path=/');
  });
});

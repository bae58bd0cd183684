import { describe, expect, it } from 'vitest';
import { SEED_REGISTRATION } from '../testing/seed-instance.ts';
import { parseIdentity, parseLeaseTtl, parseRegistration, shown } from './instance.ts';

describe('registration model', () => {
  it('accepts the seed example unchanged', () => {
    const r = parseRegistration(SEED_REGISTRATION);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.endpoints).toHaveLength(3);
  });

  it('derives service from segments, segments from service, and fills defaults', () => {
    const { service: _s, ...noService } = SEED_REGISTRATION;
    const a = parseRegistration({ ...noService, endpoints: [{ protocol: 'http', host: 'h', port: 1 }], leaseTtlSeconds: 0 });
    expect(a.ok && a.value.service).toBe('company.trade.order.order-center.api');
    expect(a.ok && a.value.endpoints[0]).toEqual({ name: 'http', protocol: 'http', host: 'h', port: 1, weight: 100 });
    expect(a.ok && a.value.leaseTtlSeconds).toBe(30);
    const b = parseRegistration({ namespace: 'prod', service: 'company.trade.order.order-center.api', instanceId: 'x' });
    expect(b.ok && b.value.application).toBe('order-center');
  });

  it('rejects disagreeing or skipped segments, missing fields and bad values', () => {
    expect(parseRegistration({ ...SEED_REGISTRATION, role: 'worker' })).toMatchObject({ ok: false });
    const { service: _s, ...noService } = SEED_REGISTRATION;
    expect(parseRegistration({ ...noService, capabilityDomain: undefined })).toMatchObject({ ok: false });
    expect(parseRegistration({ namespace: 'prod', organization: 'company', application: 'x', instanceId: 'i' })).toMatchObject({ ok: false });
    expect(parseRegistration({ ...SEED_REGISTRATION, namespace: '' })).toMatchObject({ ok: false });
    expect(parseRegistration({ ...SEED_REGISTRATION, instanceId: 'a/b' })).toMatchObject({ ok: false });
    expect(parseRegistration({ ...SEED_REGISTRATION, endpoints: [{ protocol: 'http', host: 'h', port: 70000 }] })).toMatchObject({ ok: false });
    expect(parseRegistration({ ...SEED_REGISTRATION, labels: { color: 1 } })).toMatchObject({ ok: false });
    expect(parseRegistration([])).toMatchObject({ ok: false });
  });

  it('parses identities for heartbeat and deregister', () => {
    expect(parseIdentity({ namespace: 'prod', service: 'company.trade.order.order-center.api', instanceId: 'i' }).ok).toBe(true);
    expect(parseIdentity({ namespace: 'prod', instanceId: 'i' }).ok).toBe(false);
    expect(parseLeaseTtl(-1).ok).toBe(false);
    expect(parseLeaseTtl(1.5).ok).toBe(false);
  });
});

describe('error messages show client values without serialising them', () => {
  it('an endpoint name nested past the recursion limit is a plain 400 message (found by the HTTP fuzz: it overflowed the stack)', () => {
    const deep = JSON.parse(`${'['.repeat(6_000)}${']'.repeat(6_000)}`) as unknown;
    const body = { ...SEED_REGISTRATION, endpoints: [{ protocol: 'http', host: 'h', port: 1, name: deep }] };
    const r = parseRegistration(body);
    expect(r).toEqual({ ok: false, message: 'endpoints[0].name must be letters, digits, "-", "_" or "." (got an array)' });
  });

  it('strings are quoted and shortened, other values named by kind', () => {
    expect(shown('a"b')).toBe('"a\\"b"');
    expect(shown('x'.repeat(100))).toBe(`"${'x'.repeat(80)}…"`);
    expect([shown(null), shown(1), shown(true), shown({}), shown([])]).toEqual(['null', 'a number', 'a boolean', 'an object', 'an array']);
  });
});

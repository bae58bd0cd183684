import { deriveRegistrationCredential } from '@orrery/auth';
import { describe, expect, it } from 'vitest';
import { WritePolicy } from './write-policy.ts';
import type { WriteToken } from './write-scope.ts';

const key = Buffer.alloc(32, 1);
const oldKey = Buffer.alloc(32, 2);
const SVC = 'orrery.functions.shop.counter.counter-00001';
const cred = (ns = 'shop', svc = SVC, k = key) => deriveRegistrationCredential(k, ns, svc);
const trade: WriteToken = { name: 'trade', token: 'trade-token-0123456789', namespaces: ['prod'], servicePrefixes: ['company.trade'] };

const policy = (o: Partial<ConstructorParameters<typeof WritePolicy>[0]> = {}) =>
  new WritePolicy({ masterKeys: [key], writeTokens: [], requireWriteTokens: false, ...o });

describe('write policy: the reserved prefix orrery.functions.', () => {
  it('accepts the revision credential for its own namespace and service, for every action', () => {
    for (const a of ['register', 'heartbeat', 'deregister'] as const) expect(policy().authorize(cred(), 'shop', SVC, a)).toEqual({ ok: true, by: 'registration-credential' });
  });

  it('needs a credential (401 credential_required), also in open registration', () => {
    const d = policy().authorize(undefined, 'shop', SVC, 'register');
    expect(d).toMatchObject({ ok: false, code: 'credential_required' });
    expect(!d.ok && d.message).toContain('registration credential');
  });

  it("refuses another revision's, another namespace's, another key's credential and a write token (403)", () => {
    const p = policy({ writeTokens: [{ ...trade, namespaces: ['*'], servicePrefixes: ['*'] }] });
    const refusals = [
      p.authorize(cred('shop', 'orrery.functions.shop.counter.counter-00002'), 'shop', SVC, 'register'),
      p.authorize(cred('other', 'orrery.functions.other.counter.counter-00001'), 'shop', SVC, 'register'),
      p.authorize(cred('shop', SVC), 'other', SVC, 'register'),
      p.authorize(cred('shop', SVC, Buffer.alloc(32, 9)), 'shop', SVC, 'heartbeat'),
      p.authorize(trade.token, 'shop', SVC, 'deregister'),
      p.authorize('', 'shop', SVC, 'register'),
      // case variants of the reserved prefix are reserved too, and no credential is minted for them
      p.authorize(cred(), 'shop', SVC.toUpperCase(), 'register'),
    ];
    for (const d of refusals) expect(d).toMatchObject({ ok: false, code: 'credential_rejected' });
  });

  it("a revision's credential does not cover another service (a non-reserved one), even in open registration", () => {
    expect(policy().authorize(cred(), 'shop', 'company.trade.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_rejected' });
  });

  it('rotation: old and new master keys are both accepted while both are configured', () => {
    const p = policy({ masterKeys: [key, oldKey] });
    expect(p.authorize(cred('shop', SVC, oldKey), 'shop', SVC, 'heartbeat').ok).toBe(true);
    expect(p.authorize(cred('shop', SVC, key), 'shop', SVC, 'heartbeat').ok).toBe(true);
    expect(policy().authorize(cred('shop', SVC, oldKey), 'shop', SVC, 'heartbeat').ok).toBe(false);
  });

  it('without a master key every reserved write is refused, with a message saying what to configure', () => {
    const p = policy({ masterKeys: [] });
    expect(p.reservedWritesEnabled).toBe(false);
    const none = p.authorize(undefined, 'shop', SVC, 'register');
    const some = p.authorize(cred(), 'shop', SVC, 'register');
    expect(none).toMatchObject({ ok: false, code: 'credential_required' });
    expect(some).toMatchObject({ ok: false, code: 'credential_rejected' });
    expect(!some.ok && some.message).toContain('registry_master_key_file');
  });
});

describe('write policy: other services', () => {
  it('open registration when no write token is configured and none is required', () => {
    const p = policy();
    expect(p.openRegistration).toBe(true);
    expect(p.authorize(undefined, 'prod', 'company.trade.order.oc.api', 'register')).toEqual({ ok: true, by: 'open' });
    // a credential that is sent must still be valid
    expect(p.authorize('some-token-0123456789', 'prod', 'company.trade.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_rejected' });
  });

  it('write tokens on: no token is 401, a token in scope passes, out of scope or unknown is 403', () => {
    const p = policy({ writeTokens: [trade] });
    expect(p.openRegistration).toBe(false);
    expect(p.authorize(undefined, 'prod', 'company.trade.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_required' });
    expect(p.authorize(trade.token, 'prod', 'company.trade.order.oc.api', 'heartbeat')).toEqual({ ok: true, by: 'write-token', tokenName: 'trade' });
    const other = p.authorize(trade.token, 'staging', 'company.trade.order.oc.api', 'deregister');
    expect(other).toMatchObject({ ok: false, code: 'credential_rejected' });
    expect(!other.ok && other.message).toContain('write token "trade"');
    expect(!other.ok && other.message).not.toContain(trade.token);
    expect(p.authorize(trade.token, 'prod', 'company.pay.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_rejected' });
    expect(p.authorize('unknown-token-0123456789', 'prod', 'company.trade.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_rejected' });
  });

  it('require_write_tokens with no token configured: only Orrery workers can write', () => {
    const p = policy({ requireWriteTokens: true });
    expect(p.openRegistration).toBe(false);
    expect(p.authorize(undefined, 'prod', 'company.trade.order.oc.api', 'register')).toMatchObject({ ok: false, code: 'credential_required' });
    expect(p.authorize(cred(), 'shop', SVC, 'register').ok).toBe(true);
  });
});

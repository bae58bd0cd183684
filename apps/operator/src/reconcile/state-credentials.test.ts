import { deriveStateToken, STATE_PLACEHOLDER_TOKEN, verifyStateToken } from '@orrery/auth';
import { type OrreryFunction, parseResource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { stateCredentials } from './state-credentials.ts';

const master = Buffer.alloc(32, 7);
const fn = (state?: Record<string, unknown>): OrreryFunction => {
  const r = parseResource({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'cart', namespace: 'shop' }, spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as OrreryFunction;
};

describe('stateCredentials', () => {
  it('derives the keyspace token (keyspace defaults to the function name)', () => {
    expect(stateCredentials(fn({}), { masterKey: master, stateUrl: 'http://state' }, [])).toEqual({ url: 'http://state', namespace: 'shop', keyspace: 'cart', token: deriveStateToken(master, 'shop', 'cart') });
    expect(stateCredentials(fn({ keyspace: 'carts' }), { masterKey: master, stateUrl: 'http://state' }, [])?.token).toBe(deriveStateToken(master, 'shop', 'carts'));
  });
  it('carries spec.state.fencing only when it is on', () => {
    const o = { masterKey: master, stateUrl: 'http://state' };
    const sticky = { source: 'header', name: 'x-cart' };
    expect(stateCredentials(fn({ sticky, fencing: true }), o, [])?.fencing).toBe(true);
    expect(stateCredentials(fn({ sticky, fencing: false }), o, [])).not.toHaveProperty('fencing');
    expect(stateCredentials(fn({ sticky }), o, [])).not.toHaveProperty('fencing');
  });
  it('gives none to a stateless function or without a statesvc URL', () => {
    expect(stateCredentials(fn(), { masterKey: master, stateUrl: 'http://state' }, [])).toBeUndefined();
    expect(stateCredentials(fn(), { stateUrl: 'http://state' }, [])).toBeUndefined();
    expect(stateCredentials(fn({}), { masterKey: master }, [])).toBeUndefined();
    expect(stateCredentials(fn({}), {}, [])).toBeUndefined();
  });
  it('without a master key (development) a placeholder token that no keyed statesvc accepts', () => {
    const c = stateCredentials(fn({ keyspace: 'carts' }), { stateUrl: 'http://state' }, []);
    expect(c).toEqual({ url: 'http://state', namespace: 'shop', keyspace: 'carts', token: STATE_PLACEHOLDER_TOKEN });
    expect(c!.token).toMatch(/placeholder/);
    expect(verifyStateToken(c!.token, 'shop', 'carts', [master])).toBe(false);
  });
  it('gives none to a Function whose keyspace another Function owns (first created), the owner keeps its token', () => {
    const cart = { ...fn({ keyspace: 'carts' }), metadata: { name: 'cart', namespace: 'shop', creationTimestamp: '2026-12-02T01:00:05Z' } } as OrreryFunction;
    const owner = { kind: 'Function', metadata: { name: 'zeta', namespace: 'shop', creationTimestamp: '2026-12-02T01:00:00Z' }, spec: { state: { keyspace: 'carts' } } };
    const o = { masterKey: master, stateUrl: 'http://state' };
    expect(stateCredentials(cart, o, [cart, owner])).toBeUndefined();
    expect(stateCredentials(cart, { stateUrl: 'http://state' }, [owner])).toBeUndefined();
    // Elsewhere, or once the owner is gone, the token is its own.
    expect(stateCredentials(cart, o, [{ ...owner, metadata: { ...owner.metadata, namespace: 'other' } }])?.token).toBe(deriveStateToken(master, 'shop', 'carts'));
    expect(stateCredentials(cart, o, [cart])?.token).toBe(deriveStateToken(master, 'shop', 'carts'));
    // A later declarer changes nothing for the owner.
    expect(stateCredentials({ ...cart, metadata: { ...cart.metadata, creationTimestamp: '2026-12-02T00:00:00Z' } }, o, [owner])?.token).toBe(deriveStateToken(master, 'shop', 'carts'));
  });
});

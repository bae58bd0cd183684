import { deriveRegistrationCredential, RegistrationCredentialVerifier } from '@orrery/auth';
import type { Revision } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { registrationCredentials, revisionServiceName } from './registration-credential.ts';

const rev = (ns: string, fn: string, name: string) => ({ metadata: { namespace: ns, name }, spec: { function: fn } }) as unknown as Revision;
const key = Buffer.alloc(32, 3);

describe('registration credentials the operator mints', () => {
  it('are bound to the revision service orrery.functions.<ns>.<fn>.<rev> in its namespace', () => {
    const c = registrationCredentials(key)(rev('shop', 'counter', 'counter-00002'))!;
    expect(c).toEqual({ namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00002', token: deriveRegistrationCredential(key, 'shop', 'orrery.functions.shop.counter.counter-00002') });
    const v = new RegistrationCredentialVerifier([key]);
    expect(v.verify(c.token, 'shop', c.service)).toBe(true);
    expect(v.verify(c.token, 'shop', revisionServiceName(rev('shop', 'counter', 'counter-00001')))).toBe(false);
  });

  it('are absent without a registry master key', () => {
    expect(registrationCredentials(undefined)(rev('a', 'b', 'b-00001'))).toBeUndefined();
  });
});

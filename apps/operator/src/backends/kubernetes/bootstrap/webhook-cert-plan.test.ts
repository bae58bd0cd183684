import { describe, expect, it } from 'vitest';
import { composeCaBundle, DEFAULT_WEBHOOK_CERT_POLICY as P, planWebhookCert, servingValidity } from './webhook-cert-plan.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);
const names = ['orrery-webhook.orrery-system.svc', 'orrery-webhook.orrery-system.svc.cluster.local'];
const ca = { notBefore: T0, notAfter: T0 + 5 * 365 * DAY };
const serving = { notBefore: T0, notAfter: T0 + 365 * DAY, dnsNames: names, issuedByCurrentCa: true };

describe('planWebhookCert (fake clock)', () => {
  it('makes a CA when there is none', () => {
    expect(planWebhookCert({}, T0, names)).toMatchObject({ action: 'new-ca' });
    expect(planWebhookCert({ serving }, T0, names)).toMatchObject({ action: 'new-ca' });
  });

  it('keeps a fresh pair and says when to look again: the serving certificate at 80 % of its year', () => {
    const plan = planWebhookCert({ ca, serving }, T0 + DAY, names);
    expect(plan).toEqual({ action: 'keep', nextCheckAt: T0 + 0.8 * 365 * DAY });
  });

  it('reissues the serving certificate at 80 % of its lifetime, not a millisecond before', () => {
    const at = T0 + 0.8 * 365 * DAY;
    expect(planWebhookCert({ ca, serving }, at - 1, names).action).toBe('keep');
    expect(planWebhookCert({ ca, serving }, at, names)).toMatchObject({ action: 'issue-serving', reason: expect.stringContaining('80 %') });
  });

  it('replaces the CA at 80 % of its five years, before looking at the serving certificate', () => {
    const at = T0 + 0.8 * 5 * 365 * DAY;
    const fresh = { ...serving, notBefore: at - DAY, notAfter: at + 364 * DAY };
    expect(planWebhookCert({ ca, serving: fresh }, at - 1, names).action).toBe('keep');
    expect(planWebhookCert({ ca, serving: fresh }, at, names)).toMatchObject({ action: 'new-ca' });
  });

  it('reissues a serving certificate of another CA, for other names, missing or not yet valid', () => {
    expect(planWebhookCert({ ca }, T0, names)).toMatchObject({ action: 'issue-serving' });
    expect(planWebhookCert({ ca, serving: { ...serving, issuedByCurrentCa: false } }, T0 + DAY, names)).toMatchObject({ action: 'issue-serving', reason: expect.stringContaining('current CA') });
    expect(planWebhookCert({ ca, serving: { ...serving, dnsNames: [names[0]!] } }, T0 + DAY, names)).toMatchObject({ action: 'issue-serving', reason: expect.stringContaining(names[1]!) });
    expect(planWebhookCert({ ca, serving: { ...serving, notBefore: T0 + 2 * DAY } }, T0 + DAY, names)).toMatchObject({ action: 'issue-serving' });
  });

  it('a custom policy (short lifetimes) follows the same rule', () => {
    const policy = { caLifetimeMs: 100, servingLifetimeMs: 10, renewAt: 0.5 };
    expect(planWebhookCert({ ca: { notBefore: 0, notAfter: 100 }, serving: { ...serving, notBefore: 0, notAfter: 10 } }, 4, names, policy)).toEqual({ action: 'keep', nextCheckAt: 5 });
    expect(planWebhookCert({ ca: { notBefore: 0, notAfter: 100 }, serving: { ...serving, notBefore: 0, notAfter: 10 } }, 5, names, policy).action).toBe('issue-serving');
  });
});

describe('servingValidity', () => {
  it('one year from now, back-dated a minute for clock skew', () => {
    expect(servingValidity(ca, T0 + DAY)).toEqual({ notBefore: T0 + DAY - 60_000, notAfter: T0 + DAY + P.servingLifetimeMs });
  });
  it('never outlives its CA', () => {
    expect(servingValidity(ca, ca.notAfter - DAY).notAfter).toBe(ca.notAfter);
  });
});

describe('composeCaBundle', () => {
  const entry = (pem: string, notAfter: number) => ({ pem, notBefore: 0, notAfter });
  it('current CA first, then earlier CAs still valid (the rotation overlap)', () => {
    expect(composeCaBundle(entry('new', 10_000), [entry('old', 5_000)], 1_000).map((e) => e.pem)).toEqual(['new', 'old']);
  });
  it('drops expired CAs and duplicates of the current one', () => {
    expect(composeCaBundle(entry('new', 10_000), [entry('new\n', 10_000), entry('gone', 999), entry('old', 5_000)], 1_000).map((e) => e.pem)).toEqual(['new', 'old']);
  });
});

import { describe, expect, it } from 'vitest';
import { allowed, type NetworkPolicy, selects } from './network-policy-eval.ts';

const pod = (namespace: string, labels: Record<string, string>) => ({ namespace, labels });

describe('selects', () => {
  it.each([
    [{}, {}, true],
    [{ matchLabels: { a: '1' } }, { a: '1', b: '2' }, true],
    [{ matchLabels: { a: '1' } }, { a: '2' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In' as const, values: ['1', '2'] }] }, { a: '2' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'In' as const, values: ['1'] }] }, {}, false],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' as const, values: ['1'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' as const, values: ['1'] }] }, { a: '1' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' as const }] }, { a: '' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' as const }] }, { a: '' }, false],
  ])('%j on %j → %s', (sel, labels, want) => {
    expect(selects(sel, labels)).toBe(want);
  });
});

describe('allowed', () => {
  const deny: NetworkPolicy = { metadata: { name: 'deny', namespace: 'n' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
  const fromApp: NetworkPolicy = {
    metadata: { name: 'from-app', namespace: 'n' },
    spec: { podSelector: { matchLabels: { role: 'db' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'app' } } }], ports: [{ port: 5432 }] }] },
  };
  const egressOnlyDns: NetworkPolicy = {
    metadata: { name: 'dns', namespace: 'n' },
    spec: { podSelector: { matchLabels: { role: 'app' } }, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }], ports: [{ port: 53 }] }] },
  };
  const app = pod('n', { role: 'app' });
  const db = pod('n', { role: 'db' });

  it('a pod no policy selects is open both ways', () => {
    expect(allowed([], app, db, 5432)).toBe(true);
  });
  it('an ingress policy admits only its peers and ports; policies add up', () => {
    expect(allowed([fromApp], app, db, 5432)).toBe(true);
    expect(allowed([fromApp], app, db, 22)).toBe(false);
    expect(allowed([fromApp], pod('n', { role: 'other' }), db, 5432)).toBe(false);
    expect(allowed([fromApp], pod('elsewhere', { role: 'app' }), db, 5432)).toBe(false); // podSelector alone: same namespace
    expect(allowed([deny, fromApp], app, db, 5432)).toBe(true);
    expect(allowed([deny], app, db, 5432)).toBe(false);
  });
  it('egress is judged at the source', () => {
    expect(allowed([egressOnlyDns, fromApp], app, db, 5432)).toBe(false);
    expect(allowed([egressOnlyDns], app, pod('kube-system', { k8s: 'dns' }), 53)).toBe(true);
  });
});

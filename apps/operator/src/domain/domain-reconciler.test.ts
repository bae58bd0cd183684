import { FunctionSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import type { DomainBackend, TlsSecret } from './domain-backend.ts';
import { DomainReconciler } from './domain-reconciler.ts';

class FakeBackend implements DomainBackend {
  functionsList: unknown[] = [];
  secrets = new Map<string, TlsSecret>();
  writes: Array<string[]> = [];
  readonly routerCertificatesAt = 'memory';
  async functions() {
    return this.functionsList;
  }
  async tlsSecret(namespace: string, name: string) {
    return this.secrets.get(`${namespace}/${name}`);
  }
  async writeRouterCertificates(bundle: ReadonlyMap<string, string>) {
    this.writes.push([...bundle.keys()]);
  }
}

const fnObj = (namespace: string, name: string, domains: unknown[], creationTimestamp: string, status?: unknown) =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { namespace, name, creationTimestamp }, spec: { template: { source: { inline: 'x' } }, domains }, ...(status ? { status } : {}) });

describe('DomainReconciler', () => {
  it('keeps the stored status.domains before its first pass, then reports its own and enqueues only Functions whose domains changed', async () => {
    const b = new FakeBackend();
    const changed: string[] = [];
    const r = new DomainReconciler({ backend: b, functionChanged: (k) => changed.push(k), now: () => new Date('2026-06-01T00:00:00Z'), log: () => {} });
    const stored = [{ host: 'a.example.com', ready: true, reason: 'Ready' as const }];
    const a = fnObj('ns', 'a', [{ host: 'a.example.com' }], '2026-01-01T00:00:00Z', { domains: stored });
    const late = fnObj('ns', 'late', [{ host: 'a.example.com' }], '2026-02-01T00:00:00Z');
    expect(r.statusOf(a)).toEqual(stored);

    b.functionsList = [a, late];
    await r.reconcile();
    expect(changed.sort()).toEqual(['ns/a', 'ns/late']);
    expect(r.statusOf(late)![0]!.reason).toBe('DomainClaimed');
    expect(b.writes).toEqual([[]]);

    // Nothing changed: no status churn, no bundle write.
    changed.length = 0;
    await r.reconcile();
    expect(changed).toEqual([]);
    expect(b.writes).toHaveLength(1);

    // The holder goes: the host passes to the next Function; the gone one is told too (its status empties).
    b.functionsList = [late];
    await r.reconcile();
    expect(changed.sort()).toEqual(['ns/a', 'ns/late']);
    expect(r.statusOf(late)![0]!.reason).toBe('Ready');
    expect(r.statusOf(a)).toBeUndefined();
  });
});

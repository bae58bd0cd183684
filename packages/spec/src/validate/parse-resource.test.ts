import { describe, expect, it } from 'vitest';
import { effectiveKeyspace, effectiveMaxKeys, effectiveMaxValueBytes } from '../effective.ts';
import type { OrreryFunction } from '../kinds/function.ts';
import type { RegistryCluster } from '../kinds/registry-cluster.ts';
import type { StateSync } from '../kinds/state-sync.ts';
import type { Environment } from '../kinds/environment.ts';
import { effectiveTraffic, parseResource } from './index.ts';

const GV = 'orrery.dev/v1alpha1';

describe('parseResource applies defaults', () => {
  it('Function: template defaults, empty traffic, namespace', () => {
    const r = parseResource({ apiVersion: GV, kind: 'Function', metadata: { name: 'hello' }, spec: { template: { source: { inline: 'x' } } } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const fn = r.resource as OrreryFunction;
    expect(fn.metadata.namespace).toBe('default');
    expect(fn.spec.template).toEqual({
      source: { inline: 'x' },
      environment: 'nodejs',
      entrypoint: 'default',
      env: [],
      containerConcurrency: 0,
      timeoutSeconds: 300,
      executor: 'deploy',
      autoscaling: { class: 'kpa', metric: 'concurrency' },
    });
    expect(fn.spec.traffic).toEqual([]);
    expect(fn.spec.state).toBeUndefined();
    expect(effectiveTraffic(fn.spec)).toEqual([{ latestRevision: true, percent: 100 }]);
  });

  it('Function state: zero quotas and absent keyspace resolve to effective values', () => {
    const r = parseResource({ apiVersion: GV, kind: 'Function', metadata: { name: 'cart' }, spec: { template: { source: { inline: 'x' } }, state: {} } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const fn = r.resource as OrreryFunction;
    expect(fn.spec.state).toEqual({ maxValueBytes: 0, maxKeys: 0 });
    expect(effectiveKeyspace(fn.metadata.name, fn.spec.state)).toBe('cart');
    expect(effectiveMaxValueBytes(fn.spec.state)).toBe(256 * 1024);
    expect(effectiveMaxKeys(fn.spec.state)).toBe(10_000);
  });

  it('explicit traffic is kept as written', () => {
    const traffic = [
      { revisionName: 'c-00001', percent: 90 },
      { latestRevision: true, percent: 10, tag: 'canary' },
    ];
    const r = parseResource({ apiVersion: GV, kind: 'Function', metadata: { name: 'c' }, spec: { template: { source: { inline: 'x' } }, traffic } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(effectiveTraffic((r.resource as OrreryFunction).spec)).toEqual(traffic);
  });

  it('Environment defaults', () => {
    const r = parseResource({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs' }, spec: {} });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect((r.resource as Environment).spec).toEqual({ image: 'orrery/runtime-node:latest', poolSize: 3, allowedFunctionsPerContainer: 'single' });
  });

  it('RegistryCluster defaults', () => {
    const r = parseResource({ apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'registry' }, spec: {} });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const rc = r.resource as RegistryCluster;
    expect(rc.spec.replicas).toBe(3);
    expect(rc.spec.registry).toEqual({ replicas: 2, cleanupInterval: '30s', cleanupDeleteLimit: 128 });
  });

  it('StateSync defaults', () => {
    const r = parseResource({ apiVersion: GV, kind: 'StateSync', metadata: { name: 'router' }, spec: { target: {}, redis: { url: 'redis://r' } } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const ss = r.resource as StateSync;
    expect(ss.spec).toMatchObject({ keyPrefix: 'orrery', syncPeriod: '10s', recordTTL: '2m', target: { component: 'router' } });
    expect(ss.spec.syncables).toEqual(['endpoint-quarantine', 'sticky-owners']);
  });

  it('parsing twice is stable (defaults are idempotent)', () => {
    const input = { apiVersion: GV, kind: 'Function', metadata: { name: 'c' }, spec: { template: { source: { url: 'https://x' } }, state: { sticky: { source: 'header', name: 'X-Session-Id' } } } };
    const once = parseResource(input);
    if (!once.ok) throw new Error('invalid');
    const twice = parseResource(JSON.parse(JSON.stringify(once.resource)));
    expect(twice).toEqual(once);
  });

  it('returns every error instead of a resource when invalid', () => {
    const r = parseResource({ apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'r' }, spec: { replicas: 2, registry: { cleanupInterval: 'soon' } } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => `${e.path} ${e.reason}`).sort()).toEqual(['spec.registry.cleanupInterval duration_format', 'spec.replicas replicas_odd']);
  });
});

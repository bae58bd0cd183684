import { FunctionSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import type { DeployRequest } from './deploy-flags.ts';
import { deployManifest } from './deploy-manifest.ts';
import { curlHint } from './curl-hint.ts';

const req = (over: Partial<DeployRequest> = {}): DeployRequest => ({ name: 'cart', namespace: 'shop', wait: true, timeoutMs: 1000, ...over });
const existing = FunctionSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'cart', namespace: 'shop', labels: { team: 'a' }, resourceVersion: '7', uid: 'u1', generation: 3 },
  spec: {
    template: { source: { inline: 'old' }, env: [{ name: 'A', value: '1' }], autoscaling: { target: 5, maxScale: 9 } },
    traffic: [{ latestRevision: true, percent: 90 }, { revisionName: 'cart-00001', percent: 10, tag: 'old' }],
    state: { keyspace: 'carts', maxKeys: 10 },
  },
  status: { latestReadyRevision: 'cart-00002' },
});

describe('the Function orrery deploy applies', () => {
  it('a new function: the code and the flags, the rest left to the spec defaults', () => {
    expect(deployManifest(undefined, req({ containerConcurrency: 2, scale: { minScale: 1, maxScale: 3 } }), { inline: 'code' })).toEqual({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'cart', namespace: 'shop' },
      spec: { template: { source: { inline: 'code' }, containerConcurrency: 2, autoscaling: { minScale: 1, maxScale: 3 } } },
    });
    expect(deployManifest(undefined, req(), undefined)).toEqual({ error: 'function shop/cart does not exist yet: give its code with --code FILE' });
  });

  it('an existing function keeps its traffic, env, state, labels and other autoscaling knobs; no status or server fields are sent', () => {
    const m = deployManifest(existing, req({ environment: 'python', scale: { minScale: 0, maxScale: 0 }, sticky: { source: 'header', name: 'X-User' } }), { configMapRef: { name: 'cart-code-1', key: 'index.mjs' } });
    expect(m).toEqual({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'cart', namespace: 'shop', labels: { team: 'a' } },
      spec: {
        ...existing.spec,
        template: { ...existing.spec.template, source: { configMapRef: { name: 'cart-code-1', key: 'index.mjs' } }, environment: 'python', autoscaling: { ...existing.spec.template.autoscaling, minScale: 0, maxScale: 0 } },
        state: { ...existing.spec.state, sticky: { source: 'header', name: 'X-User' } },
      },
    });
    // Without --code the source stays.
    expect((deployManifest(existing, req(), undefined) as unknown as { spec: { template: { source: unknown } } }).spec.template.source).toEqual({ inline: 'old' });
    // The stored object is not modified.
    expect(existing.spec.template.source).toEqual({ inline: 'old' });
  });

  it('--sticky needs state: on a stateless function it asks for --state', () => {
    expect(deployManifest(undefined, req({ sticky: { source: 'header', name: 'X-User' } }), { inline: 'x' })).toEqual({ error: '--sticky needs a stateful function: add --state KEYSPACE (cart has no spec.state)' });
    const m = deployManifest(undefined, req({ keyspace: 'carts', sticky: { source: 'queryparam', name: 'u' } }), { inline: 'x' });
    expect((m as unknown as { spec: { state: unknown } }).spec.state).toEqual({ keyspace: 'carts', sticky: { source: 'queryparam', name: 'u' } });
  });

  it('curl: the URL, and the sticky key where the router reads it', () => {
    expect(curlHint('http://127.0.0.1:8080/default/hello')).toBe(`curl 'http://127.0.0.1:8080/default/hello/'`);
    expect(curlHint('http://h/shop/cart/', { source: 'header', name: 'X-User' })).toBe(`curl -H 'X-User: alice' 'http://h/shop/cart/'`);
    expect(curlHint('http://h/shop/cart', { source: 'queryparam', name: 'user id' })).toBe(`curl 'http://h/shop/cart/?user%20id=alice'`);
    expect(curlHint('http://h/shop/cart', { source: 'cookie', name: 'sid' })).toBe(`curl --cookie 'sid=alice' 'http://h/shop/cart/'`);
  });
});

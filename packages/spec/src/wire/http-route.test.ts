import { describe, expect, it } from 'vitest';
import { findRoute, responseBodySchema } from './http-route.ts';
import { REGISTRY_HTTP_API, RegistryInstancesDataSchema } from './registry-http.ts';
import { STATESVC_HTTP_API } from './statesvc-http.ts';

describe('findRoute', () => {
  const route = (method: string, path: string) => {
    const r = findRoute(STATESVC_HTTP_API, method, path);
    return r && `${r.method} ${r.path}`;
  };

  it('matches templates, the whole rest of the path being the key', () => {
    expect(route('GET', '/v1/state/user%2F1')).toBe('GET /v1/state/{key}');
    expect(route('PUT', '/v1/state/a/cas')).toBe('PUT /v1/state/{key}');
    expect(route('POST', '/v1/state/a/b/cas')).toBe('POST /v1/state/{key}/cas');
    expect(route('GET', '/v1/state?prefix=p%2F&limit=2')).toBe('GET /v1/state');
    expect(route('DELETE', '/v1/admin/keyspace?scope-namespace=a&scope-keyspace=b')).toBe('DELETE /v1/admin/keyspace');
  });

  it('finds nothing for unknown paths or methods', () => {
    expect(route('GET', '/v2/nothing')).toBeUndefined();
    expect(route('PATCH', '/v1/state/a')).toBeUndefined();
    expect(route('POST', '/v1/state')).toBeUndefined();
  });
});

describe('responseBodySchema', () => {
  it('wraps data in the envelope of an API that has one, but not bare or streamed answers', () => {
    const instances = findRoute(REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances')!;
    const body = responseBodySchema(REGISTRY_HTTP_API, instances.responses[200]!)!;
    expect(body.safeParse({ code: 'ok', message: '', data: { revision: 3, instances: [] }, requestId: 'r' }).success).toBe(true);
    expect(body.safeParse({ revision: 3, instances: [] }).success).toBe(false);
    const sd = findRoute(REGISTRY_HTTP_API, 'GET', '/internal/v1/prometheus/sd')!;
    expect(responseBodySchema(REGISTRY_HTTP_API, sd.responses[200]!)!.safeParse([]).success).toBe(true);
    const watch = findRoute(REGISTRY_HTTP_API, 'GET', '/api/v1/registry/watch')!;
    expect(responseBodySchema(REGISTRY_HTTP_API, watch.responses[200]!)!.safeParse({ type: 'snapshot', revision: 1, instances: [] }).success).toBe(true);
    expect(RegistryInstancesDataSchema.safeParse({ revision: 3, instances: [] }).success).toBe(true);
  });

  it('is the schema itself for an API without an envelope', () => {
    const list = findRoute(STATESVC_HTTP_API, 'GET', '/v1/state')!;
    expect(responseBodySchema(STATESVC_HTTP_API, list.responses[200]!)!.safeParse({ keys: [], cursor: '' }).success).toBe(true);
    const metrics = findRoute(STATESVC_HTTP_API, 'GET', '/metrics')!;
    expect(responseBodySchema(STATESVC_HTTP_API, metrics.responses[200]!)).toBeUndefined();
  });
});

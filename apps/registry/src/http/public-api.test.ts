import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, registryOpenApiJson } from '@orrery/spec';
import { PUBLIC_ROUTES } from './public-api.ts';

/** The public listener's own route table against docs/openapi/registry.json: a route without a document fails here. */
describe('PUBLIC_ROUTES and the OpenAPI document', () => {
  const doc = JSON.parse(registryOpenApiJson()) as { paths: Record<string, Record<string, unknown>> };
  const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
  const served = Object.entries(PUBLIC_ROUTES).map(([path, r]) => `${r.method} ${path}`);

  it('every route the listener serves is documented, with its method', () => {
    for (const route of served) expect(documented, route).toContain(route);
  });

  it('the document lists no route the listener does not serve', () => {
    expect(documented.sort()).toEqual(served.sort());
  });

  it('serves the document itself, under its own metrics name', () => {
    expect(PUBLIC_ROUTES[OPENAPI_PATH]).toEqual({ method: 'GET', name: 'openapi' });
    expect(new Set(Object.values(PUBLIC_ROUTES).map((r) => r.name)).size).toBe(served.length);
  });
});

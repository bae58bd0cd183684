/**
 * GET /openapi.json, and the document against the routes statesvc really answers. statesvc has
 * no route table to compare with (its handler dispatches on path prefixes), so the test asks the
 * server: every documented operation, sent well-formed, succeeds; every other method × path
 * (the documented paths, their neighbours, and routes the design names for later, such as
 * /v1/changes and /v1/fences/{key}) is refused with 400 or 404. A route added to the server but
 * not to the wire contract answers something else and fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken, signAdminUrl } from '@orrery/auth';
import { findRoute, OPENAPI_PATH, OpenApiDocumentSchema, type HttpApi } from '@orrery/spec';
import { MemoryDriver } from '@orrery/statestore';
import { parseKeyspaces } from './keyspaces.ts';
import { startStateServer, type RunningStateServer } from './server.ts';

const MASTER = Buffer.alloc(32, 7);
const CHECKED_IN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'openapi', 'statesvc.json');
const scopeHeaders = { authorization: `Bearer ${deriveStateToken(MASTER, 'default', 'cart')}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];
/** statesvc answers these for any method (probes and scrapers send GET); the document lists GET. */
const ANY_METHOD = new Set(['/healthz', '/readyz', '/metrics']);

let srv: RunningStateServer;
beforeAll(async () => {
  srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => parseKeyspaces('- {namespace: default, keyspace: cart}'), masterKeys: [MASTER], passThrough: false, log: () => {} });
});
afterAll(async () => {
  await srv?.close();
});

/** One request as a client following the document would send it: scope headers, or a signed admin URL with its scope. */
async function send(method: string, path: string): Promise<{ status: number; text: string }> {
  let target = path;
  let headers: Record<string, string> = { ...scopeHeaders, 'content-type': 'application/json' };
  if (path.startsWith('/v1/admin')) {
    target = signAdminUrl(MASTER, method, `${path}?scope-namespace=default&scope-keyspace=cart`, Date.now() / 1000 + 60);
    headers = {};
  }
  const body = method === 'PUT' ? '1' : method === 'POST' ? '{"expectVersion":0,"value":1}' : undefined;
  const res = await fetch(srv.url + target, { method, headers, body, signal: AbortSignal.timeout(5000) });
  // A stream (an undocumented SSE route, say) is cut after its status: the status is the verdict.
  const text = res.headers.get('content-type')?.includes('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
  return { status: res.status, text };
}

/** The keys the probes read, write and delete, present before each probe (a CAS create-only probe needs its key absent). */
async function seed(method: string, key: string): Promise<void> {
  for (const k of ['k', 'k/cas']) await fetch(`${srv.url}/v1/state/${encodeURIComponent(k)}`, { method: 'PUT', headers: scopeHeaders, body: '1' });
  if (method === 'POST') await fetch(`${srv.url}/v1/state/${encodeURIComponent(key)}`, { method: 'DELETE', headers: scopeHeaders });
}

describe('GET /openapi.json', () => {
  it('answers 200 with the OpenAPI 3.1 document checked in at docs/openapi/statesvc.json', async () => {
    const res = await fetch(`${srv.url}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body: unknown = await res.json();
    expect(OpenApiDocumentSchema.parse(body).openapi).toMatch(/^3\.1\.\d+$/);
    expect(body).toEqual(JSON.parse(readFileSync(CHECKED_IN, 'utf8')));
  });

  it('needs no credentials, and refuses other methods with 400 bad_request', async () => {
    const post = await fetch(`${srv.url}${OPENAPI_PATH}`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
    expect(post.status).toBe(400);
    expect(await post.json()).toEqual({ error: `use GET ${OPENAPI_PATH}`, code: 'bad_request' });
  });
});

describe('the document and the routes statesvc answers', () => {
  let documented: HttpApi;
  let paths: string[];
  beforeAll(async () => {
    const doc = (await (await fetch(`${srv.url}${OPENAPI_PATH}`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => ({ method: m.toUpperCase(), path })));
    documented = { routes } as unknown as HttpApi; // findRoute reads only method and path
    paths = Object.keys(doc.paths).map((p) => p.replace('{key}', 'k'));
  });

  it('every documented operation, sent well-formed, succeeds', async () => {
    expect(documented.routes.length).toBeGreaterThanOrEqual(10);
    for (const r of documented.routes) {
      const path = r.path.replace('{key}', 'k');
      await seed(r.method, 'k');
      const { status, text } = await send(r.method, path);
      expect(status, `${r.method} ${path}: ${text}`).toBe(200);
    }
  });

  it('every other method and path is refused (400 wrong method / bad input, 404 no route)', async () => {
    const neighbours = ['/', '/v1', '/v1/', '/v1/state/', '/v1/admin', '/v1/admin/', '/v1/admin/other', '/v1/changes', '/v1/fences/k', '/v1/keys', '/v2/state/k', '/state/k', '/openapi.yaml', '/openapi.json/x', '/healthz/x'];
    let refused = 0;
    for (const path of [...new Set([...paths, ...neighbours])]) {
      for (const method of METHODS) {
        if (findRoute(documented, method, path) || ANY_METHOD.has(path)) continue;
        await seed(method, path.slice('/v1/state/'.length) || 'k');
        const { status, text } = await send(method, path);
        expect([400, 404], `${method} ${path} is answered ${status} but not documented: ${text}`).toContain(status);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(60);
  });
});

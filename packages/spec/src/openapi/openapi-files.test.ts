import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { responseBodySchema, type HttpApi } from '../wire/http-route.ts';
import { REGISTRY_ADMIN_HTTP_API } from '../wire/registry-admin-http.ts';
import { REGISTRY_HTTP_API } from '../wire/registry-http.ts';
import { STATESVC_HTTP_API } from '../wire/statesvc-http.ts';
import { OPENAPI_DIR, renderOpenApiFiles } from './openapi-files.ts';
import { OPENAPI_PATH } from './openapi-route.ts';
import { REGISTRY_ADMIN_OPENAPI_OPTIONS, REGISTRY_OPENAPI_OPTIONS } from './registry-openapi.ts';
import { STATESVC_OPENAPI_OPTIONS } from './statesvc-openapi.ts';

type Operation = { operationId: string; security: Record<string, string[]>[]; responses: Record<string, { content?: Record<string, { schema: unknown }>; 'x-orrery-error-codes'?: string[] }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

const files = renderOpenApiFiles();
const doc = (name: string) => JSON.parse(files.get(name)!) as Doc;
const APIS: [string, HttpApi, boolean][] = [
  ['statesvc.json', STATESVC_HTTP_API, true],
  ['registry.json', REGISTRY_HTTP_API, true],
  ['registry-admin.json', REGISTRY_ADMIN_HTTP_API, false],
];

describe('docs/openapi', () => {
  it('is current: npm run gen:openapi output equals the files on disk, and there are no others', () => {
    expect(readdirSync(OPENAPI_DIR).filter((f) => f.endsWith('.json')).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(join(OPENAPI_DIR, name), 'utf8'), `${name} is stale: run npm run gen:openapi`).toBe(text);
  });

  it.each([...files.keys()])('%s is a valid OpenAPI 3.1 document', async (name) => {
    const validator = new Validator();
    const result = await validator.validate(doc(name));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator refuses a broken document (so the check above can fail)', async () => {
    const broken = structuredClone(doc('statesvc.json')) as unknown as { paths: Record<string, Record<string, { parameters: { in: string }[] }>> };
    broken.paths['/v1/state']!.get!.parameters[0]!.in = 'body';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it.each([...files.keys()])('%s: every $ref resolves and every operationId is unique', (name) => {
    const d = doc(name);
    const refs = [...files.get(name)!.matchAll(/"\$ref": "#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(Object.keys(d.components.schemas), r).toContain(r);
    const ids = Object.values(d.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(APIS)('%s has every route of its table with its error codes (and the document route when served)', (name, api, served) => {
    const d = doc(name);
    const expected = [...api.routes.map((r) => `${r.method} ${r.path}`), ...(served ? [`GET ${OPENAPI_PATH}`] : [])].sort();
    const actual = Object.entries(d.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(actual.sort()).toEqual(expected);
    for (const r of api.routes) {
      const codes = Object.values(d.paths[r.path]![r.method.toLowerCase()]!.responses).flatMap((res) => res['x-orrery-error-codes'] ?? []);
      expect(codes.sort(), `${r.method} ${r.path}`).toEqual([...r.errors].sort());
    }
  });

  it('describes the bearer schemes and which routes need them', () => {
    const state = doc('statesvc.json');
    expect(Object.keys(state.components.schemas)).toContain('StateErrorBody');
    expect(state.paths['/v1/state/{key}']!.put!.security).toEqual([{ stateToken: [] }]);
    expect(state.paths['/v1/admin/usage']!.get!.security).toEqual([]);
    expect(state.paths['/healthz']!.get!.security).toEqual([]);
    const registry = doc('registry.json');
    expect(registry.paths['/api/v1/registry/register']!.post!.security).toEqual([{ registryCredential: [] }, {}]);
    expect(registry.paths['/internal/v1/replication/watch']!.get!.security).toEqual([{ replicationToken: [] }]);
    expect(registry.paths['/internal/v1/prometheus/sd']!.get!.security).toEqual([{ prometheusSdToken: [] }]);
    expect(registry.paths['/api/v1/registry/instances']!.get!.security).toEqual([]);
    expect(doc('registry-admin.json').paths['/admin/v1/status']!.get!.security).toEqual([{ adminToken: [] }]);
    for (const opts of [STATESVC_OPENAPI_OPTIONS, REGISTRY_OPENAPI_OPTIONS, REGISTRY_ADMIN_OPENAPI_OPTIONS]) {
      for (const scheme of Object.values(opts.securitySchemes)) expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    }
  });

  it('holds no secrets: nothing shaped like a key or token value, and servers only at loopback defaults', () => {
    for (const text of files.values()) {
      expect(text).not.toMatch(/[0-9a-fA-F]{32,}/);
      const servers = (JSON.parse(text) as { servers: { variables: { address: { default: string } } }[] }).servers;
      for (const s of servers) expect(s.variables.address.default).toMatch(/^127\.0\.0\.1:\d+$/);
    }
  });

  it('its schemas accept the answers the zod contracts accept, and refuse what they refuse', () => {
    const instance = {
      namespace: 'prod', service: 'a.b.c.d.e', organization: 'a', businessDomain: 'b', capabilityDomain: 'c', application: 'd', role: 'e',
      instanceId: 'i-1', zone: '', labels: { color: 'gray' }, metadata: {}, endpoints: [{ name: 'http', protocol: 'http', host: '10.0.0.1', port: 8080, weight: 100 }],
      leaseTtlSeconds: 30, revision: 7, createRevision: 5, leaseId: '694d7f',
    };
    const ok = (data: unknown) => ({ code: 'ok', message: '', data, requestId: 'r-1' });
    const samples: [string, HttpApi, string, string, string, unknown][] = [
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances', '200', ok({ revision: 7, instances: [instance] })],
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances', '200', ok({ revision: 7, instances: [{ ...instance, endpoints: [{ ...instance.endpoints[0], port: 0 }] }] })],
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances', '200', { revision: 7, instances: [] }],
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/internal/v1/prometheus/sd', '200', [{ targets: ['10.0.0.1:9090'], labels: { namespace: 'prod' } }]],
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances', '400', { code: 'bad_request', message: 'x', data: {}, requestId: 'r' }],
      ['registry.json', REGISTRY_HTTP_API, 'GET', '/api/v1/registry/instances', '400', { code: 'ok', message: 'x', data: {}, requestId: 'r' }],
      ['statesvc.json', STATESVC_HTTP_API, 'GET', '/v1/state/{key}', '200', { value: { any: ['json', 1, null] } }],
      ['statesvc.json', STATESVC_HTTP_API, 'GET', '/v1/state', '200', { keys: ['a'], cursor: '' }],
      ['statesvc.json', STATESVC_HTTP_API, 'GET', '/v1/state', '200', { keys: 'a', cursor: '' }],
      ['statesvc.json', STATESVC_HTTP_API, 'PUT', '/v1/state/{key}', '412', { error: 'key is at 4', code: 'version_conflict' }],
      ['statesvc.json', STATESVC_HTTP_API, 'PUT', '/v1/state/{key}', '412', { error: 'x', code: 'teapot' }],
    ];
    const verdicts = samples.map(([name, api, method, path, status, body]) => {
      const d = doc(name);
      const ajv = new Ajv2020({ strict: false });
      ajv.addSchema(d, 'doc');
      const { $ref } = d.paths[path]![method.toLowerCase()]!.responses[status]!.content!['application/json']!.schema as { $ref: string };
      const route = api.routes.find((r) => r.method === method && r.path === path)!;
      const zod = status === '200' ? responseBodySchema(api, route.responses[200]!)! : api.errorBody;
      const expected = zod.safeParse(body).success;
      expect(ajv.validate({ $ref: `doc${$ref}` }, body), `${method} ${path} ${status} ${JSON.stringify(body)}`).toBe(expected);
      return expected;
    });
    expect(new Set(verdicts)).toEqual(new Set([true, false]));
  });
});

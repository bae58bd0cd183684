/** GET /openapi.json on a real registry (real etcd): public, bare, the checked-in document. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '@orrery/etcdcluster';
import { OPENAPI_PATH, OpenApiDocumentSchema, RegistryErrorEnvelopeSchema } from '@orrery/spec';
import type { RunningRegistry } from '../server.ts';
import { startTestRegistry } from '../testing/fixture.ts';

const CHECKED_IN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'docs', 'openapi', 'registry.json');
let cluster: EtcdCluster;
let registry: RunningRegistry;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  registry = await startTestRegistry(cluster.endpoints());
}, 60_000);
afterAll(async () => {
  await registry?.close();
  await cluster?.close();
}, 60_000);

describe('GET /openapi.json', () => {
  it('answers 200 without credentials and without the envelope: the OpenAPI 3.1 document in docs/openapi/registry.json', async () => {
    const res = await fetch(`${registry.httpUrl}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body: unknown = await res.json();
    expect(OpenApiDocumentSchema.parse(body).openapi).toMatch(/^3\.1\.\d+$/);
    expect(body).toEqual(JSON.parse(readFileSync(CHECKED_IN, 'utf8')));
  });

  it('refuses other methods with 405 method_not_allowed, as the document says', async () => {
    const res = await fetch(`${registry.httpUrl}${OPENAPI_PATH}`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    const body = RegistryErrorEnvelopeSchema.parse(await res.json());
    expect(body.code).toBe('method_not_allowed');
    const doc = JSON.parse(readFileSync(CHECKED_IN, 'utf8')) as { paths: Record<string, { get: { responses: Record<string, { 'x-orrery-error-codes'?: string[] }> } }> };
    expect(doc.paths[OPENAPI_PATH]!.get.responses['405']!['x-orrery-error-codes']).toEqual(['method_not_allowed']);
  });

  it('is counted in the request metrics under its own route name', async () => {
    await (await fetch(`${registry.httpUrl}${OPENAPI_PATH}`)).text();
    const text = await (await fetch(`${registry.httpUrl}/metrics`)).text();
    expect(text).toMatch(/orrery_registry_requests_total\{route="openapi",code="ok"\} [1-9]/);
  });
});

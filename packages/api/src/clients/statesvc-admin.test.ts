import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateKeyspaceUsageSchema, StateNamespacesResponseSchema } from '@orrery/spec';
import type { ApiServices } from '../context.ts';
import { statesvcAdminGet } from './statesvc-admin.ts';

// A pass-through statesvc stand-in: what it answers per path.
const answers: Record<string, { status: number; body: unknown }> = {
  '/v1/admin/namespaces': { status: 200, body: { namespaces: [{ namespace: 'default', keys: 1, bytes: 2, byteBudget: 0, keyspaces: [] }] } },
  '/v1/admin/usage': { status: 200, body: { namespace: 'default', keyspace: 'cart', keys: '1', bytes: 2 } },
};
let server: Server;
let services: ApiServices;

beforeAll(async () => {
  server = createServer((req, res) => {
    const a = answers[new URL(req.url!, 'http://x').pathname] ?? { status: 404, body: { error: 'no route', code: 'not_found' } };
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  services = { statesvc: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, upstreamTimeoutMs: 2000 } as ApiServices;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('statesvcAdminGet', () => {
  it('answers the body checked against the route schema', async () => {
    const r = await statesvcAdminGet(services, '/v1/admin/namespaces', StateNamespacesResponseSchema);
    expect(r.namespaces[0]).toMatchObject({ namespace: 'default', keys: 1 });
  });

  it('refuses a body that does not match the contract as bad_response (BAD_GATEWAY), naming the field', async () => {
    const err = await statesvcAdminGet(services, '/v1/admin/usage?scope-namespace=default&scope-keyspace=cart', StateKeyspaceUsageSchema).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_GATEWAY', message: expect.stringMatching(/^bad_response: statesvc's \/v1\/admin\/usage answer .*: keys: /) });
  });

  it('passes statesvc errors on: 404 as NOT_FOUND with its message', async () => {
    const err = await statesvcAdminGet(services, '/v1/admin/nothing', StateKeyspaceUsageSchema).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'statesvc admin read failed: no route' });
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createBearerTokenGuard } from './bearer-token-guard.ts';

describe('bearer token guard', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  const serve = async (token: string | undefined): Promise<string> => {
    const guard = createBearerTokenGuard(token);
    server = createServer((req, res) => {
      if (guard(req, res)) res.writeHead(200).end('passed');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('with a token: refuses a missing, wrong or differently sized token with 401 unauthorized', async () => {
    const url = await serve('s3cret-token');
    for (const authorization of [undefined, 'Bearer wrong-token!', 'Bearer s3cret-toke', 'Bearer s3cret-tokenX', 's3cret-token', 'Basic s3cret-token']) {
      const res = await fetch(url, { method: 'POST', headers: authorization ? { authorization } : {}, body: '{}' });
      expect(res.status, String(authorization)).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    const ok = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer s3cret-token' }, body: '{}' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('passed');
  });

  it('without a token: loopback callers pass (as for the store API)', async () => {
    const url = await serve(undefined);
    expect((await fetch(url)).status).toBe(200);
  });
});

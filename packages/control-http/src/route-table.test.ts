import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, sendJson, type RouteTable } from './index.ts';

let server: Server;
let url = '';
let table: RouteTable = async () => false;

beforeAll(async () => {
  server = createServer((req, res) => {
    // The table may throw synchronously (a handler's own throw, a malformed escape): a promise first.
    Promise.resolve().then(() => table(req, res)).then(
      (answered) => {
        if (!answered) sendJson(res, 418, { passed: true });
      },
      (err: unknown) => sendJson(res, 500, { thrown: String(err) }),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** Sends `method path` as written (no normalising of the path) and reads the answer. */
function call(method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A handler that echoes which route answered and its params. */
const echo = (name: string) => (req: IncomingMessage, res: ServerResponse, params: unknown) => sendJson(res, 200, { name, method: req.method, params });

describe('routes', () => {
  beforeAll(() => {
    table = routes([
      { method: ['GET', 'HEAD'], path: '/healthz', handler: echo('healthz') },
      { method: 'POST', path: '/v1/events', handler: echo('events-post') },
      { method: 'GET', path: '/v1/events', handler: echo('events-get') },
      { method: 'GET', path: '/v1/things/:ns/:name', handler: (_req, res, p) => sendJson(res, 200, { ns: p.ns, name: p.name }) },
      { method: 'PUT', path: '/v1/things/:ns/:name/status', handler: echo('status') },
      { method: 'POST', path: '/v1/executor/*', handler: (_req, res, p) => sendJson(res, 200, { rest: p['*'] }) },
      { path: '/any', handler: echo('any') },
    ]);
  });

  it('matches an exact path, with an empty params', async () => {
    expect(await call('POST', '/v1/events')).toMatchObject({ status: 200, body: { name: 'events-post', params: {} } });
    expect(await call('GET', '/v1/events')).toMatchObject({ status: 200, body: { name: 'events-get' } });
  });

  it('ignores the query string', async () => {
    expect(await call('GET', '/v1/events?since=3&x=/v1/other')).toMatchObject({ status: 200, body: { name: 'events-get' } });
    expect(await call('GET', '/v1/things/a/b?c=d')).toMatchObject({ status: 200, body: { ns: 'a', name: 'b' } });
  });

  it('binds :params, decoded after splitting, so %2F stays inside its segment', async () => {
    expect(await call('GET', '/v1/things/team%20a/x%2Fy')).toMatchObject({ status: 200, body: { ns: 'team a', name: 'x/y' } });
    expect(await call('PUT', '/v1/things/a/b/status')).toMatchObject({ status: 200, body: { name: 'status', params: { ns: 'a', name: 'b' } } });
  });

  it('a :param is never empty and the segment count must agree', async () => {
    expect((await call('GET', '/v1/things/a/')).status).toBe(404);
    expect((await call('GET', '/v1/things//b')).status).toBe(404);
    expect((await call('GET', '/v1/things/a')).status).toBe(404);
    expect((await call('GET', '/v1/things/a/b/c')).status).toBe(404);
  });

  it('a malformed escape in a param throws URIError, for the server to answer', async () => {
    expect(await call('GET', '/v1/things/a/%zz')).toMatchObject({ status: 500, body: { thrown: expect.stringContaining('URIError') } });
  });

  it('a trailing /* takes the rest after its slash, undecoded and possibly empty, and needs the slash', async () => {
    expect(await call('POST', '/v1/executor/specialize/x%2Fy')).toMatchObject({ status: 200, body: { rest: 'specialize/x%2Fy' } });
    expect(await call('POST', '/v1/executor/')).toMatchObject({ status: 200, body: { rest: '' } });
    expect((await call('POST', '/v1/executor')).status).toBe(404);
    expect((await call('POST', '/v1/executorx')).status).toBe(404);
  });

  it('a trailing slash is another path', async () => {
    expect((await call('GET', '/healthz/')).status).toBe(404);
    expect((await call('GET', '/v1/events/')).status).toBe(404);
  });

  it('a known path asked with another method is 405 with Allow listing every method of that path', async () => {
    const r = await call('DELETE', '/v1/events');
    expect(r).toMatchObject({ status: 405, body: { code: 'method_not_allowed', error: 'DELETE is not allowed on /v1/events: use POST, GET' } });
    expect(r.headers.allow).toBe('POST, GET');
    expect((await call('GET', '/v1/executor/x')).headers.allow).toBe('POST');
  });

  it('an unknown path is 404 not_found, naming the request', async () => {
    expect(await call('GET', '/nope?q=1')).toMatchObject({ status: 404, body: { error: 'no route for GET /nope', code: 'not_found' } });
  });

  it('HEAD answers only where listed, and without a body', async () => {
    expect(await call('HEAD', '/healthz')).toMatchObject({ status: 200, body: undefined });
    const r = await call('HEAD', '/v1/events');
    expect(r).toMatchObject({ status: 405, body: undefined });
    expect(r.headers.allow).toBe('POST, GET');
  });

  it('a route without a method takes every method', async () => {
    expect(await call('PATCH', '/any')).toMatchObject({ status: 200, body: { name: 'any', method: 'PATCH' } });
  });

  it('the first route that matches answers', async () => {
    table = routes([
      { method: 'GET', path: '/v1/things/special/one', handler: echo('literal') },
      { method: 'GET', path: '/v1/things/:ns/:name', handler: echo('params') },
    ]);
    expect(await call('GET', '/v1/things/special/one')).toMatchObject({ body: { name: 'literal' } });
    expect(await call('GET', '/v1/things/special/two')).toMatchObject({ body: { name: 'params' } });
  });
});

describe('routes options', () => {
  it('notFound and methodNotAllowed can be the server\'s own answers', async () => {
    table = routes([{ method: 'GET', path: '/a', handler: echo('a') }], {
      notFound: (_req, res) => sendJson(res, 404, { mine: 'not here' }),
      methodNotAllowed: (_req, res, allow) => sendJson(res, 405, { mine: allow }),
    });
    expect(await call('GET', '/b')).toMatchObject({ status: 404, body: { mine: 'not here' } });
    const r = await call('POST', '/a');
    expect(r).toMatchObject({ status: 405, body: { mine: 'GET' } });
    expect(r.headers.allow).toBeUndefined();
  });

  it('notFound: false answers nothing and resolves false, so the server can chain', async () => {
    table = routes([{ method: 'GET', path: '/a', handler: echo('a') }], { notFound: false });
    expect(await call('GET', '/b')).toMatchObject({ status: 418, body: { passed: true } });
    expect((await call('POST', '/a')).status).toBe(405);
  });

  it('a handler that rejects rejects the table\'s promise', async () => {
    table = routes([{ path: '/boom', handler: () => Promise.reject(new Error('boom')) }]);
    expect(await call('GET', '/boom')).toMatchObject({ status: 500, body: { thrown: 'Error: boom' } });
  });

  it('a handler (or notFound) that throws synchronously throws synchronously: the table adds no tick', () => {
    const sync = routes([{ path: '/boom', handler: () => { throw new Error('now'); } }], { notFound: () => { throw new Error('unknown'); } });
    const req = (url: string) => ({ url, method: 'GET' }) as IncomingMessage;
    expect(() => sync(req('/boom'), {} as ServerResponse)).toThrow('now');
    expect(() => sync(req('/else'), {} as ServerResponse)).toThrow('unknown');
  });

  it('matches the path the server gives instead of req.url, when it gives one', async () => {
    const t = routes([{ method: 'GET', path: '/v1/things/:ns/:name', handler: () => {} }], { notFound: (_req, _res, path) => expect(path).toBe('/normalised') });
    expect(await t({ url: '/v1/things/a/../b', method: 'GET' } as IncomingMessage, {} as ServerResponse, '/v1/things/a/b')).toBe(true);
    expect(await t({ url: '/v1/things/a/b', method: 'GET' } as IncomingMessage, {} as ServerResponse, '/normalised')).toBe(true);
  });

  it('resolves only once an async handler has finished', async () => {
    const steps: string[] = [];
    const t = routes([{ path: '/slow', handler: async () => { await new Promise((r) => setTimeout(r, 10)); steps.push('handler'); } }]);
    await t({ url: '/slow', method: 'GET' } as IncomingMessage, {} as ServerResponse);
    steps.push('resolved');
    expect(steps).toEqual(['handler', 'resolved']);
  });

  it('types each handler\'s params from its own pattern', () => {
    routes([
      {
        path: '/v1/things/:ns/:name/*',
        handler: (_req, _res, p) => {
          const names: [string, string, string] = [p.ns, p.name, p['*']];
          // @ts-expect-error: the pattern has no :other
          void p.other;
          void names;
        },
      },
      {
        path: '/plain',
        handler: (_req, _res, p) => {
          // @ts-expect-error: an exact path binds nothing
          void p.ns;
        },
      },
    ]);
  });

  it('refuses patterns it cannot match', () => {
    expect(() => routes([{ path: 'no-slash', handler: () => {} }])).toThrow('must start with /');
    expect(() => routes([{ path: '/a/*/b', handler: () => {} }])).toThrow('* must be the last segment');
    expect(() => routes([{ path: '/a/:/b', handler: () => {} }])).toThrow('needs a name');
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorPost } from './operator-post.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const s = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, body, res));
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('operatorPost (the activator’s calls to the operator)', () => {
  it('sends the JSON body and the bearer token, parses the JSON answer, and reuses one kept-alive connection', async () => {
    const seen: { auth?: string; type?: string; body: string; port: number }[] = [];
    const base = await serve((req, body, res) => {
      seen.push({ auth: req.headers.authorization, type: req.headers['content-type'], body, port: req.socket.remotePort! });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ address: '127.0.0.1:4000', got: JSON.parse(body) as unknown }));
    });
    const a = await operatorPost(`${base}/v1/executor/specialize`, { namespace: 'default', function: 'ünïcode' }, { token: 's3cret', timeoutMs: 2000 });
    const b = await operatorPost(`${base}/v1/executor/specialize`, { n: 2 }, { token: 's3cret', timeoutMs: 2000 });
    expect(a).toEqual({ status: 200, body: { address: '127.0.0.1:4000', got: { namespace: 'default', function: 'ünïcode' } } });
    expect(b.body).toMatchObject({ got: { n: 2 } });
    expect(seen.map((s) => [s.auth, s.type])).toEqual([
      ['Bearer s3cret', 'application/json'],
      ['Bearer s3cret', 'application/json'],
    ]);
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  it('different URLs of one operator share its kept-alive connection (the stats keep it warm for a specialize call)', async () => {
    const ports: number[] = [];
    const base = await serve((req, _body, res) => {
      ports.push(req.socket.remotePort!);
      res.end('{}');
    });
    await operatorPost(`${base}/v1/autoscaler/stats`, {}, { timeoutMs: 2000 });
    await operatorPost(`${base}/v1/executor/specialize`, {}, { timeoutMs: 2000 });
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  it('any status is an answer; a body that is not a JSON object becomes {}', async () => {
    const base = await serve((req, _body, res) => {
      if (req.url === '/array') return res.end('[1,2]');
      res.writeHead(409, { 'content-type': 'text/plain' });
      res.end('not json');
    });
    expect(await operatorPost(`${base}/text`, {}, { timeoutMs: 2000 })).toEqual({ status: 409, body: {} });
    expect(await operatorPost(`${base}/array`, {}, { timeoutMs: 2000 })).toEqual({ status: 200, body: {} });
  });

  it('no token, no authorization header', async () => {
    let auth: string | undefined = 'unset';
    const base = await serve((req, _body, res) => {
      auth = req.headers.authorization;
      res.end('{}');
    });
    await operatorPost(`${base}/x`, {}, { timeoutMs: 2000 });
    expect(auth).toBeUndefined();
  });

  it('an answer over 1 MiB is refused, a refused connection and a silent operator fail with the URL named', async () => {
    const big = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`);
    });
    await expect(operatorPost(`${big}/big`, {}, { timeoutMs: 5000 })).rejects.toThrow(/more than 1048576 bytes/);

    const gone = await serve(() => undefined);
    const goneUrl = `${gone}/v1/autoscaler/poke`;
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    await expect(operatorPost(goneUrl, {}, { timeoutMs: 2000 })).rejects.toThrow(goneUrl);

    const silent = await serve(() => undefined); // reads the body, never answers
    await expect(operatorPost(`${silent}/slow`, {}, { timeoutMs: 300 })).rejects.toThrow(/headers timeout/);
  });

  it('a connection the operator closed while idle is not reused: the next call goes out on a fresh one', async () => {
    const ports: number[] = [];
    const base = await serve((req, _body, res) => {
      ports.push(req.socket.remotePort!);
      res.end('{"ok":true}');
    });
    const server = servers[0]!;
    server.keepAliveTimeout = 50;
    const closed = new Promise((r) => server.once('connection', (sock: Socket) => sock.once('close', r)));
    expect((await operatorPost(`${base}/a`, {}, { timeoutMs: 2000 })).body).toEqual({ ok: true });
    await closed; // the server ended the idle connection (node adds a margin to keepAliveTimeout)
    expect((await operatorPost(`${base}/a`, {}, { timeoutMs: 2000 })).body).toEqual({ ok: true });
    expect(ports[1]).not.toBe(ports[0]);
  });
});

import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spliceSockets } from './socket-splice.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** Two connected socket pairs: [outerA, innerA] and [innerB, outerB]; the inner ends get spliced. */
async function pair(): Promise<[Socket, Socket]> {
  const server = createServer({ allowHalfOpen: true });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<Socket>((r) => server.once('connection', r));
  const outer = connect({ port: (server.address() as { port: number }).port, host: '127.0.0.1', allowHalfOpen: true });
  return [outer, await accepted];
}

const read = (s: Socket, n: number) =>
  new Promise<string>((resolve) => {
    let got = '';
    const on = (d: Buffer) => {
      got += d.toString();
      if (got.length >= n) {
        s.off('data', on);
        resolve(got);
      }
    };
    s.on('data', on);
  });

describe('spliceSockets', () => {
  it('copies bytes both ways, passes a half-close on, and reports the first close exactly once', async () => {
    const [client, a] = await pair();
    const [upstream, b] = await pair();
    let closes = 0;
    spliceSockets(a, b, () => closes++);
    client.write('to upstream');
    expect(await read(upstream, 11)).toBe('to upstream');
    upstream.write('to client');
    expect(await read(client, 9)).toBe('to client');
    // The upstream ends: what it sent last still reaches the client, then the client's side ends too.
    const clientEnded = new Promise((r) => client.once('end', r));
    upstream.end('bye');
    expect(await read(client, 3)).toBe('bye');
    await clientEnded;
    client.end();
    upstream.resume();
    await new Promise((r) => setTimeout(r, 50));
    expect(closes).toBe(1);
    expect(a.destroyed && b.destroyed).toBe(true);
  });

  it('an abrupt close of one side destroys the other', async () => {
    const [client, a] = await pair();
    const [upstream, b] = await pair();
    let closes = 0;
    spliceSockets(a, b, () => closes++);
    // Half-open allowed on the test's end: the FIN shows up as 'end'.
    const upstreamEnded = new Promise((r) => upstream.once('end', r));
    upstream.resume();
    client.resetAndDestroy();
    await upstreamEnded;
    expect(closes).toBe(1);
    expect(a.destroyed && b.destroyed).toBe(true);
    upstream.destroy();
  });

  it('a side already closed before the splice still reports the close once', async () => {
    const [client, a] = await pair();
    const [, b] = await pair();
    a.destroy();
    await new Promise((r) => a.once('close', r));
    let closes = 0;
    spliceSockets(a, b, () => closes++);
    await new Promise((r) => setTimeout(r, 20));
    expect(closes).toBe(1);
    expect(b.destroyed).toBe(true);
    client.destroy();
  });
});

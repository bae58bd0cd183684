import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { nodeHeaderObject } from './node-header-object.ts';

/** What node's own server makes of `rawHeaders` (the reference the raw ingress must match). */
function nodeParses(rawHeaders: string[]): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      resolve(req.headers);
      res.end();
      server.close();
    });
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      const s = connect(port, '127.0.0.1');
      let head = 'GET / HTTP/1.1\r\n';
      for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
      s.on('error', reject);
      s.on('data', () => s.destroy());
      s.write(`${head}Connection: close\r\n\r\n`);
    });
  });
}

describe('nodeHeaderObject', () => {
  it('reads like node: first of a single-valued header, joined lists, cookies, set-cookie array, lower-cased names', async () => {
    const raw = [
      'Host', 'a',
      'Authorization', 'Bearer first',
      'authorization', 'Bearer second',
      'X-Orrery-State-Namespace', 'default',
      'x-orrery-state-namespace', 'other',
      'Content-Length', '0',
      'Cookie', 'a=1',
      'cookie', 'b=2',
      'Set-Cookie', 's=1',
      'set-cookie', 's=2',
      'If-Match', '1',
      'if-match', '2',
      'User-Agent', 'u1',
      'User-Agent', 'u2',
    ];
    const mine = nodeHeaderObject([...raw, 'Connection', 'close']);
    const node = await nodeParses(raw);
    expect(mine).toEqual(node);
    // The scope headers a token is checked against: a repeat cannot replace the first value.
    expect(mine.authorization).toBe('Bearer first');
    expect(mine['x-orrery-state-namespace']).toBe('default, other');
  });

  it('an empty list is an empty object', () => {
    expect(nodeHeaderObject([])).toEqual({});
  });
});

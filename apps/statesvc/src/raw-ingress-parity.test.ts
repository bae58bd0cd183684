/**
 * statesvc answers a state-key request the same on the raw ingress (the default) as on node:http
 * (`--http-ingress node`): the same bytes sent to both, the same status, headers (but Date) and
 * body back — reads, writes, CAS, deletes, preconditions, idempotent replays, TTLs, every refusal,
 * repeated scope headers, and bodies over the cap (which the raw ingress leaves to node).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { MemoryDriver } from '@orrery/statestore';
import { parseKeyspaces } from './keyspaces.ts';
import { startStateServer, type RunningStateServer, type StateHttpIngress } from './server.ts';

const MASTER = Buffer.alloc(32, 9);
const TOKEN = deriveStateToken(MASTER, 'default', 'cart');
const OTHER = deriveStateToken(MASTER, 'default', 'other');
const SCOPE = `authorization: Bearer ${TOKEN}\r\nx-orrery-state-namespace: default\r\nx-orrery-state-keyspace: cart\r\n`;
const MAX_BODY = 2048;

const servers = new Map<StateHttpIngress, RunningStateServer>();
beforeAll(async () => {
  for (const httpIngress of ['raw', 'node'] as const) {
    servers.set(
      httpIngress,
      await startStateServer({
        driver: new MemoryDriver(),
        keyspaces: () => parseKeyspaces('- {namespace: default, keyspace: cart, maxValueBytes: 256}\n- {namespace: default, keyspace: other}'),
        masterKeys: [MASTER],
        passThrough: false,
        maxBodyBytes: MAX_BODY,
        log: () => {},
        httpIngress,
      }),
    );
  }
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

interface Answer {
  status: string;
  headers: Record<string, string>;
  body: string;
}

/** One request on its own connection; the answer read to the server's close. */
function send(url: string, request: string): Promise<Answer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('error', reject);
    s.on('close', () => {
      const end = text.indexOf('\r\n\r\n');
      const lines = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).toLowerCase();
        if (name !== 'date') headers[name] = line.slice(i + 1).trim();
      }
      resolve({ status: lines[0]!, headers, body: text.slice(end + 4) });
    });
    s.write(request);
  });
}

const req = (method: string, path: string, extra = '', body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: s\r\n${extra}${body ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` : ''}Connection: close\r\n\r\n${body}`;

const CASES: Array<[string, string]> = [
  ['create', req('PUT', '/v1/state/k1', SCOPE, '{"n":1}')],
  ['read', req('GET', '/v1/state/k1', SCOPE)],
  ['read with a query', req('GET', '/v1/state/k1?x=1', SCOPE)],
  ['missing', req('GET', '/v1/state/nope', SCOPE)],
  ['overwrite at the right version', req('PUT', '/v1/state/k1', `${SCOPE}if-match: 1\r\n`, '{"n":2}')],
  ['overwrite at a stale version', req('PUT', '/v1/state/k1', `${SCOPE}if-match: 1\r\n`, '{"n":3}')],
  ['bad If-Match', req('PUT', '/v1/state/k1', `${SCOPE}if-match: x\r\n`, '1')],
  ['not JSON', req('PUT', '/v1/state/k1', SCOPE, '{oops')],
  ['empty body', req('PUT', '/v1/state/k1', `${SCOPE}content-length: 0\r\n`)],
  ['over the keyspace limit', req('PUT', '/v1/state/big', SCOPE, JSON.stringify('x'.repeat(300)))],
  ['over the service cap', req('PUT', '/v1/state/big', SCOPE, JSON.stringify('x'.repeat(MAX_BODY + 10)))],
  ['with a TTL', req('PUT', '/v1/state/t', `${SCOPE}x-orrery-state-ttl: 60\r\n`, '"soon"')],
  ['read with a TTL', req('GET', '/v1/state/t', SCOPE)],
  ['idempotent write', req('PUT', '/v1/state/i', `${SCOPE}idempotency-key: op-1\r\n`, '7')],
  ['its replay', req('PUT', '/v1/state/i', `${SCOPE}idempotency-key: op-1\r\n`, '7')],
  ['its mismatch', req('PUT', '/v1/state/i', `${SCOPE}idempotency-key: op-1\r\n`, '8')],
  ['recorded read', req('GET', '/v1/state/i', `${SCOPE}idempotency-key: read-1\r\n`)],
  ['CAS', req('POST', '/v1/state/c/cas', SCOPE, '{"expectVersion":0,"value":{"a":1}}')],
  ['CAS conflict', req('POST', '/v1/state/c/cas', SCOPE, '{"expectVersion":0,"value":{"a":2}}')],
  ['CAS malformed', req('POST', '/v1/state/c/cas', SCOPE, '{"value":1}')],
  ['POST without cas', req('POST', '/v1/state/c', SCOPE, '1')],
  ['delete', req('DELETE', '/v1/state/k1', SCOPE)],
  ['delete again', req('DELETE', '/v1/state/k1', SCOPE)],
  ['delete with a body', req('DELETE', '/v1/state/c', SCOPE, '{"ignored":true}')],
  ['no token', req('GET', '/v1/state/k1', 'x-orrery-state-namespace: default\r\nx-orrery-state-keyspace: cart\r\n')],
  ['a forged token', req('GET', '/v1/state/k1', 'authorization: Bearer abc\r\nx-orrery-state-namespace: default\r\nx-orrery-state-keyspace: cart\r\n')],
  ['another keyspace\'s token', req('GET', '/v1/state/k1', `authorization: Bearer ${OTHER}\r\nx-orrery-state-namespace: default\r\nx-orrery-state-keyspace: cart\r\n`)],
  ['a second Authorization', req('GET', '/v1/state/k1', `${SCOPE}authorization: Bearer ${OTHER}\r\n`)],
  ['a second keyspace header', req('GET', '/v1/state/k1', `${SCOPE}x-orrery-state-keyspace: other\r\n`)],
  ['an undeclared keyspace', req('GET', '/v1/state/k1', `authorization: Bearer ${deriveStateToken(MASTER, 'default', 'nope')}\r\nx-orrery-state-namespace: default\r\nx-orrery-state-keyspace: nope\r\n`)],
  ['a bad key', req('GET', '/v1/state/%ZZ', SCOPE)],
  ['a reserved key', req('GET', '/v1/state/%23meta', SCOPE)],
  ['HEAD', req('HEAD', '/v1/state/t', SCOPE)],
  ['PATCH', req('PATCH', '/v1/state/t', SCOPE, '1')],
  ['list (node on both)', req('GET', '/v1/state?prefix=', SCOPE)],
];

describe('statesvc on the raw ingress answers as on node:http', () => {
  it('the same status, headers (but Date) and body for every case, in order', async () => {
    for (const [name, request] of CASES) {
      const raw = await send(servers.get('raw')!.url, request);
      const node = await send(servers.get('node')!.url, request);
      expect(raw, name).toEqual(node);
    }
    // Not all refusals: the sequence did reach the store.
    const read = await send(servers.get('raw')!.url, req('GET', '/v1/state/t', SCOPE));
    expect(read.status).toBe('HTTP/1.1 200 OK');
    expect(read.body).toBe('{"value":"soon"}');
  });
});

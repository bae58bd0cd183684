/**
 * Issue 20 item 12, against real `orrery-router` processes and a real upstream worker, on both
 * ingresses (`--ingress raw` and `--ingress node`):
 *
 * - a client's X-Forwarded-For/-Proto/-Host, Forwarded and X-Real-IP never reach the worker as
 *   sent: the router overwrites them with what it saw — unless the peer is a configured
 *   `--trusted-proxies` member, whose headers are kept and appended to;
 * - a second Host → 400 duplicate_host;
 * - a Transfer-Encoding other than one `chunked` is refused, not dropped: 501 for an unknown
 *   coding, 400 for a malformed or duplicated one;
 * - a client's Orrery-Invocation-Id never reaches the worker: a Function with
 *   `onWorkerLoss: replay` gets one the router minted, any other none.
 *
 * Every request goes over a raw socket so the bytes (duplicate lines, odd codings) are exactly
 * what the test wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, functionYaml, ProcessGroup } from './testing/processes.ts';
import { header, ResponseReader, type ReadResponse } from './testing/response-reader.ts';

const g = new ProcessGroup();
const routers: Record<string, { url: string }> = {};

beforeAll(async () => {
  const up = await g.upstream('echo');
  const routes = g.write('routes.yaml', functionYaml({ name: 'echo', revisions: ['echo-00001'] }) + functionYaml({ name: 'replayed', revisions: ['replayed-00001'], onWorkerLoss: 'replay' }));
  const endpoints = g.write(
    'endpoints.yaml',
    endpointsYaml([
      { fn: 'echo', rev: 'echo-00001', address: up.address },
      { fn: 'replayed', rev: 'replayed-00001', address: up.address },
    ]),
  );
  const common = ['--routes-file', routes, '--endpoints-file', endpoints];
  const configs: Record<string, string[]> = {
    // the default: the router is the edge
    edge: [],
    // a trusted-proxy list that does not include the test's address (127.0.0.1)
    other: ['--trusted-proxies', '10.0.0.0/8,fd00::/8'],
    // the test client is the trusted proxy
    trusted: ['--trusted-proxies', '10.0.0.0/8, 127.0.0.1/32'],
  };
  await Promise.all(
    Object.entries(configs).flatMap(([name, extra]) =>
      (['raw', 'node'] as const).map(async (ingress) => {
        routers[`${name}/${ingress}`] = await g.router([...common, ...extra, '--ingress', ingress]);
      }),
    ),
  );
  // Wait until each router has loaded its endpoints.
  for (const r of Object.values(routers)) {
    for (let i = 0; i < 200; i++) {
      const res = await send(r.url, `GET /default/echo/ HTTP/1.1\r\nHost: x\r\n\r\n`);
      if (res.status === 200) break;
      await new Promise((s) => setTimeout(s, 50));
    }
  }
}, 90_000);

afterAll(() => g.stopAll());

/** One request on a fresh connection; `closedAfter`: the router closed it (waited for only when `expectClose`). */
async function send(url: string, text: string, expectClose = false): Promise<ReadResponse & { closedAfter: boolean }> {
  const reader = await ResponseReader.open(Number(new URL(url).port));
  try {
    reader.write(text);
    const r = await reader.next({ timeoutMs: 5_000 });
    if (typeof r === 'string') throw new Error(`no response (${r}) to ${JSON.stringify(text)}`);
    return { ...r, closedAfter: expectClose ? await reader.waitClosed(2_000) : reader.closed };
  } finally {
    reader.close();
  }
}

interface Echo {
  rawHeaders: string[];
  headers: Record<string, string>;
  body: string;
}

/** The upstream's view: each forwarding header's values (lower-case name → every line). */
function forwarding(echo: Echo): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < echo.rawHeaders.length; i += 2) {
    const name = echo.rawHeaders[i]!.toLowerCase();
    if (['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded', 'x-real-ip'].includes(name)) (out[name] ??= []).push(echo.rawHeaders[i + 1]!);
  }
  return out;
}

const SPOOFED =
  'GET /default/echo/who HTTP/1.1\r\nHost: shop.example\r\n' +
  'X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-For: 7.7.7.7\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example\r\n' +
  'Forwarded: for=6.6.6.6;proto=https;host=evil.example\r\nX-Real-IP: 6.6.6.6\r\n\r\n';

const EDGE_VIEW = {
  'x-forwarded-for': ['127.0.0.1'],
  'x-forwarded-proto': ['http'],
  'x-forwarded-host': ['shop.example'],
  forwarded: ['for=127.0.0.1;host=shop.example;proto=http'],
  'x-real-ip': ['127.0.0.1'],
};

describe.each(['raw', 'node'])('--ingress %s', (ingress) => {
  it('overwrites every forwarding header a client sends (no --trusted-proxies)', { timeout: 20_000 }, async () => {
    const r = await send(routers[`edge/${ingress}`]!.url, SPOOFED);
    expect(r.status).toBe(200);
    expect(forwarding(JSON.parse(r.body.toString()) as Echo)).toEqual(EDGE_VIEW);
  });

  it('overwrites them too when the client is not one of the --trusted-proxies', { timeout: 20_000 }, async () => {
    const r = await send(routers[`other/${ingress}`]!.url, SPOOFED);
    expect(r.status).toBe(200);
    expect(forwarding(JSON.parse(r.body.toString()) as Echo)).toEqual(EDGE_VIEW);
  });

  it('keeps and appends to a trusted proxy’s headers, and finds the client behind it', { timeout: 20_000 }, async () => {
    const r = await send(
      routers[`trusted/${ingress}`]!.url,
      'GET /default/echo/who HTTP/1.1\r\nHost: shop.internal\r\nX-Forwarded-For: 198.51.100.4, 10.0.0.7\r\nX-Forwarded-Proto: https\r\n' +
        'X-Forwarded-Host: shop.example\r\nForwarded: for=198.51.100.4;proto=https, for=10.0.0.7\r\nX-Real-IP: 6.6.6.6\r\n\r\n',
    );
    expect(r.status).toBe(200);
    expect(forwarding(JSON.parse(r.body.toString()) as Echo)).toEqual({
      'x-forwarded-for': ['198.51.100.4, 10.0.0.7, 127.0.0.1'],
      'x-forwarded-proto': ['https'],
      'x-forwarded-host': ['shop.example'],
      forwarded: ['for=198.51.100.4;proto=https, for=10.0.0.7, for=127.0.0.1;host=shop.internal;proto=http'],
      // X-Real-IP is derived (rightmost untrusted X-Forwarded-For hop), never taken from the request.
      'x-real-ip': ['198.51.100.4'],
    });
    // A trusted proxy's X-Forwarded-Proto is believed only as http or https.
    const odd = await send(routers[`trusted/${ingress}`]!.url, 'GET /default/echo/p HTTP/1.1\r\nHost: h\r\nX-Forwarded-Proto: gopher\r\n\r\n');
    expect(forwarding(JSON.parse(odd.body.toString()) as Echo)['x-forwarded-proto']).toEqual(['http']);
  });

  it('drops every Orrery-Invocation-Id a client sends; a replay Function gets one of the router', { timeout: 20_000 }, async () => {
    const ids = async (fn: string): Promise<string[]> => {
      const r = await send(
        routers[`edge/${ingress}`]!.url,
        `POST /default/${fn}/ HTTP/1.1\r\nHost: a.example\r\nOrrery-Invocation-Id: 0123456789abcdef0123456789abcdef\r\norrery-invocation-id: 0123456789abcdef0123456789abcdef\r\nContent-Length: 2\r\n\r\nok`,
      );
      expect(r.status).toBe(200);
      const raw = (JSON.parse(r.body.toString()) as Echo).rawHeaders;
      return raw.filter((_v, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === 'orrery-invocation-id');
    };
    expect(await ids('echo')).toEqual([]);
    const minted = await ids('replayed');
    expect(minted).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    expect(minted[0]).not.toBe('0123456789abcdef0123456789abcdef');
  });

  it('refuses a second Host with 400 duplicate_host and closes', { timeout: 20_000 }, async () => {
    for (const text of [
      'GET /default/echo/h HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n',
      'GET /default/echo/h HTTP/1.1\r\nHost: a.example\r\nhost: a.example\r\n\r\n',
      'POST /default/echo/h HTTP/1.1\r\nHost: a.example\r\nContent-Length: 2\r\nHOST: b.example\r\n\r\nok',
    ]) {
      const r = await send(routers[`edge/${ingress}`]!.url, text, true);
      expect(r.status, text).toBe(400);
      expect(JSON.parse(r.body.toString())).toMatchObject({ code: 'duplicate_host' });
      expect(header(r, 'connection')).toBe('close');
      expect(r.closedAfter).toBe(true);
    }
  });

  it('refuses Transfer-Encoding other than a single chunked: 501 unknown coding, 400 malformed or duplicate', { timeout: 20_000 }, async () => {
    const url = routers[`edge/${ingress}`]!.url;
    const post = (te: string, body = '0\r\n\r\n', version = '1.1', expectClose = true) => send(url, `POST /default/echo/te HTTP/${version}\r\nHost: a.example\r\n${te}\r\n${body}`, expectClose);
    for (const te of ['Transfer-Encoding: gzip, chunked\r\n', 'Transfer-Encoding: deflate,chunked\r\n', 'Transfer-Encoding: x-custom;a=1, chunked\r\n']) {
      const r = await post(te, '5\r\nhello\r\n0\r\n\r\n');
      expect(r.status, te).toBe(501);
      expect(JSON.parse(r.body.toString())).toMatchObject({ code: 'unsupported_transfer_encoding' });
      expect(r.closedAfter).toBe(true);
    }
    // Malformed or duplicated: some node's parser already refuses (a bare 400), the rest the router does (JSON); all 400.
    for (const [te, version] of [
      ['Transfer-Encoding: chunked, chunked\r\n', '1.1'],
      ['Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', '1.1'],
      ['Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n', '1.1'],
      ['Transfer-Encoding: gzip, chunked, chunked\r\n', '1.1'],
      ['Transfer-Encoding: chunked, gzip\r\n', '1.1'],
      ['Transfer-Encoding: \r\n', '1.1'],
      ['Transfer-Encoding: chunked\r\n', '1.0'],
      ['Transfer-Encoding: chunked\r\nContent-Length: 5\r\n', '1.1'],
    ] as const) {
      const r = await post(te, '0\r\n\r\n', version);
      expect(r.status, `${te} HTTP/${version}`).toBe(400);
      if (r.body.length > 0) expect(JSON.parse(r.body.toString()), te).toMatchObject({ code: 'bad_transfer_encoding' });
      expect(r.closedAfter, te).toBe(true);
    }
    // A single chunked, in any case, is forwarded with its body.
    for (const te of ['Transfer-Encoding: chunked\r\n', 'Transfer-Encoding: Chunked\r\n']) {
      const r = await post(te, '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n', '1.1', false);
      expect(r.status, te).toBe(200);
      expect((JSON.parse(r.body.toString()) as Echo).body).toBe('hello world');
    }
  });
});

/**
 * Differential test of the two ingresses: the same bytes — ordinary requests, odd ones and
 * fuzzed ones, with and without bodies, pipelined — go to a real `orrery-router --ingress raw`
 * and a real `--ingress node` in front of the same echo upstream. Every response (status, head
 * but its Date and the number in `Keep-Alive: timeout=`, body) and what the upstream saw
 * (method, path, raw headers with X-Forwarded-*, body) must be the same. The raw ingress may only
 * take what node would read the same way. (The raw ingress announces a shorter keep-alive than
 * it keeps, for a race-free drain; node can only announce the one it keeps.)
 */
import { createServer, type Server } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';
import { parseRequestHead } from '@orrery/raw-http';
import { ResponseReader, type ReadResult } from './testing/response-reader.ts';

const g = new ProcessGroup();
let raw: { url: string; admin: string };
let node: { url: string; admin: string };
/** The same pair with the test client as a --trusted-proxies member (issue 20 item 12). */
let rawTrusted: { url: string; admin: string };
let nodeTrusted: { url: string; admin: string };
/** A worker that answers with a header value no HTTP server may send (a control character). */
let badWorker: Server;

beforeAll(async () => {
  const up = await g.upstream('echo');
  badWorker = createServer((s) => s.on('data', () => s.write('HTTP/1.1 200 OK\r\nX-Bad: a\x01b\r\nContent-Length: 2\r\n\r\nok')));
  await new Promise<void>((r) => badWorker.listen(0, '127.0.0.1', r));
  const bad = `127.0.0.1:${(badWorker.address() as { port: number }).port}`;
  const routes = g.write('routes.yaml', functionYaml({ name: 'echo', revisions: ['echo-00001'] }) + functionYaml({ name: 'bad', revisions: ['bad-00001'] }));
  const endpoints = g.write('endpoints.yaml', endpointsYaml([{ fn: 'echo', rev: 'echo-00001', address: up.address }, { fn: 'bad', rev: 'bad-00001', address: bad }]));
  const common = ['--routes-file', routes, '--endpoints-file', endpoints, '--max-body-bytes', '100000'];
  const trusting = ['--trusted-proxies', '127.0.0.1/32'];
  [raw, node, rawTrusted, nodeTrusted] = await Promise.all([
    g.router([...common, '--ingress', 'raw']),
    g.router([...common, '--ingress', 'node']),
    g.router([...common, ...trusting, '--ingress', 'raw']),
    g.router([...common, ...trusting, '--ingress', 'node']),
  ]);
  for (const r of [raw, node, rawTrusted, nodeTrusted]) {
    for (let i = 0; i < 200; i++) {
      const res = await request(`${r.url}/default/echo/`).catch(() => undefined);
      const ok = res?.statusCode === 200;
      await res?.body.dump();
      if (ok) break;
      await new Promise((s) => setTimeout(s, 50));
    }
  }
}, 60_000);

afterAll(async () => {
  await g.stopAll();
  await new Promise((r) => badWorker?.close(r));
});

interface Case {
  name: string;
  bytes: Buffer;
  /** The responses answer HEAD requests (no body). */
  head?: boolean;
  /** Send request by request, each once the previous one is answered (see `segments`). */
  oneByOne?: boolean;
}

const H = 'Host: example.test\r\n';
const c = (name: string, text: string, head = false): Case => ({ name, bytes: Buffer.from(text, 'latin1'), head });

/** Issue 20 item 12: what a client claims about where it came from (overwritten unless it is a trusted proxy). */
function forwardingCases(): Case[] {
  return [
    c('Forwarded, X-Real-IP and X-Forwarded-* spoofed together', `GET /default/echo/fw HTTP/1.1\r\n${H}X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.test\r\nForwarded: for=6.6.6.6;proto=https\r\nforwarded: for=7.7.7.7\r\nX-Real-IP: 6.6.6.6\r\n\r\n`),
    c('X-Forwarded-For list with IPv6 and ports, odd proto', `GET /default/echo/fw6 HTTP/1.1\r\n${H}X-Forwarded-For: [2001:db8::1]:443, 198.51.100.4:80, unknown\r\nX-Forwarded-Proto: gopher\r\n\r\n`),
    c('Forwarded with a quoted host, no X-Forwarded-For', `GET /default/echo/fwq HTTP/1.1\r\nHost: example.test:8080\r\nForwarded: for="[2001:db8::1]";host="a:1"\r\n\r\n`),
    c('forwarding headers on a POST with a body', `POST /default/echo/fwp HTTP/1.1\r\n${H}Content-Length: 2\r\nX-Real-IP: 1.2.3.4\r\nX-Forwarded-For: 1.2.3.4\r\n\r\nok`),
  ];
}

/** Issue 20 item 12: a second Host, Transfer-Encoding other than a single chunked. */
function framingCases(): Case[] {
  const te = (name: string, header: string, body = '0\r\n\r\n', version = '1.1') => c(name, `POST /default/echo/te HTTP/${version}\r\n${H}${header}\r\n${body}`);
  return [
    c('two Hosts with the same value', `GET /default/echo/twohosts HTTP/1.1\r\n${H}${H}\r\n`),
    c('two Hosts, then another request', `GET /default/echo/twohosts HTTP/1.1\r\n${H}host: b\r\n\r\nGET /default/echo/after HTTP/1.1\r\n${H}\r\n`),
    c('two Hosts on a POST with a body', `POST /default/echo/twohosts HTTP/1.1\r\n${H}Content-Length: 2\r\nHOST: b\r\n\r\nok`),
    te('Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: gzip, chunked\r\n', '5\r\nhello\r\n0\r\n\r\n'),
    te('Transfer-Encoding: identity, chunked', 'Transfer-Encoding: identity, chunked\r\n'),
    te('Transfer-Encoding: chunked, chunked', 'Transfer-Encoding: chunked, chunked\r\n'),
    te('Transfer-Encoding on two lines', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n'),
    te('Transfer-Encoding gzip then chunked on two lines', 'Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n'),
    te('Transfer-Encoding: gzip, chunked, chunked', 'Transfer-Encoding: gzip, chunked, chunked\r\n'),
    te('Transfer-Encoding: chunked, gzip', 'Transfer-Encoding: chunked, gzip\r\n'),
    te('Transfer-Encoding: gzip', 'Transfer-Encoding: gzip\r\n'),
    te('empty Transfer-Encoding', 'Transfer-Encoding: \r\n', ''),
    te('Transfer-Encoding: chunked;x=1', 'Transfer-Encoding: chunked;x=1\r\n'),
    te('Transfer-Encoding in HTTP/1.0', 'Transfer-Encoding: chunked\r\n', '0\r\n\r\n', '1.0'),
    te('Transfer-Encoding: Chunked (case)', 'Transfer-Encoding: Chunked\r\n', '2\r\nhi\r\n0\r\n\r\n'),
    te('Transfer-Encoding: ,chunked (empty element)', 'Transfer-Encoding: ,chunked\r\n', '2\r\nhi\r\n0\r\n\r\n'),
  ];
}

const handWritten: Case[] = [
  c('plain GET', `GET /default/echo/a/b?c=d HTTP/1.1\r\n${H}\r\n`),
  c('GET with odd but valid target bytes', `GET /default/echo/~a-b_c.d!$&'()*+,;=:@/%41?x=/y?z%zz HTTP/1.1\r\n${H}\r\n`),
  c('POST with a body', `POST /default/echo/p HTTP/1.1\r\n${H}Content-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world`),
  c('POST with an empty body', `POST /default/echo/p HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`),
  c('GET with a body', `GET /default/echo/g HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabc`),
  c('PUT, PATCH, DELETE, OPTIONS', ['PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => `${m} /default/echo/${m} HTTP/1.1\r\n${H}Content-Length: 2\r\n\r\nxy`).join('')),
  c('HEAD', `HEAD /default/echo/h HTTP/1.1\r\n${H}\r\n`, true),
  c('whitespace, tabs, empty values, obs-text, duplicates, case', `GET /default/echo/w HTTP/1.1\r\nhOsT:example.test\r\nX-A:   padded \t\r\nX-B:\tin  side\r\nX-Empty:\r\nX-Obs: caf\xe9\r\nx-a: again\r\nACCEPT: */*\r\n\r\n`),
  c('Connection: close', `GET /default/echo/c HTTP/1.1\r\n${H}Connection: close\r\n\r\n`),
  c('Connection naming headers to drop', `GET /default/echo/n HTTP/1.1\r\n${H}Connection: keep-alive, X-Secret\r\nX-Secret: no\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nProxy-Connection: x\r\n\r\n`),
  c('X-Forwarded-* from the client', `GET /default/echo/f HTTP/1.1\r\n${H}X-Forwarded-For: 10.0.0.1\r\nx-forwarded-for: 10.0.0.2\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: spoofed\r\n\r\n`),
  ...forwardingCases(),
  c('tag header, unknown tag', `GET /default/echo/ HTTP/1.1\r\n${H}Orrery-Tag: nope\r\n\r\n`),
  c('unknown function', `GET /default/nope/ HTTP/1.1\r\n${H}\r\n`),
  c('not a function path', `GET /x HTTP/1.1\r\n${H}\r\n`),
  c('body over --max-body-bytes, then another request', `POST /default/echo/big HTTP/1.1\r\n${H}Content-Length: 150000\r\n\r\n${'z'.repeat(150_000)}GET /default/echo/after HTTP/1.1\r\n${H}\r\n`),
  c('a 90 kB body', `POST /default/echo/b HTTP/1.1\r\n${H}Content-Length: 90000\r\n\r\n${'q'.repeat(90_000)}`),
  c('three pipelined requests', `GET /default/echo/1?delay=20 HTTP/1.1\r\n${H}\r\nPOST /default/echo/2 HTTP/1.1\r\n${H}Content-Length: 4\r\n\r\nbodyGET /default/echo/3 HTTP/1.1\r\n${H}Connection: close\r\n\r\n`),
  // Handed over to node (the same node answers in both routers):
  c('HTTP/1.0', `GET /default/echo/old HTTP/1.0\r\n${H}\r\n`),
  c('HTTP/1.0 keep-alive', `GET /default/echo/old HTTP/1.0\r\n${H}Connection: keep-alive\r\n\r\n`),
  c('chunked body', `POST /default/echo/ch HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`),
  c('chunked and Content-Length', `POST /default/echo/x HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`),
  c('obs-fold', `GET /default/echo/x HTTP/1.1\r\n${H}X-A: b\r\n c\r\n\r\n`),
  c('duplicate Content-Length', `POST /default/echo/x HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc`),
  c('conflicting Content-Length', `POST /default/echo/x HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`),
  c('Content-Length list', `POST /default/echo/x HTTP/1.1\r\n${H}Content-Length: 3, 3\r\n\r\nabc`),
  c('bare LF line ends', `GET /default/echo/lf HTTP/1.1\n${H.replace('\r\n', '\n')}\n`),
  c('bare CR in a value', `GET /default/echo/cr HTTP/1.1\r\n${H}X-A: b\rc\r\n\r\n`),
  c('NUL in a value', `GET /default/echo/nul HTTP/1.1\r\n${H}X-A: b\x00c\r\n\r\n`),
  c('space before the colon', `GET /default/echo/sp HTTP/1.1\r\n${H}X-A : b\r\n\r\n`),
  c('absolute-form target', `GET http://example.test/default/echo/abs HTTP/1.1\r\n${H}\r\n`),
  c('asterisk target', `OPTIONS * HTTP/1.1\r\n${H}\r\n`),
  c('target with | and {}', `GET /default/echo/a|b{c} HTTP/1.1\r\n${H}\r\n`),
  c('no Host', `GET /default/echo/nohost HTTP/1.1\r\n\r\n`),
  c('two Hosts', `GET /default/echo/twohosts HTTP/1.1\r\n${H}Host: other.test\r\n\r\n`),
  ...framingCases(),
  c('lower-case method', `get /default/echo/ HTTP/1.1\r\n${H}\r\n`),
  c('unknown method', `FOO /default/echo/ HTTP/1.1\r\n${H}\r\n`),
  c('WebDAV method', `PROPFIND /default/echo/ HTTP/1.1\r\n${H}\r\n`),
  c('Expect: 100-continue', `POST /default/echo/e HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Length: 2\r\n\r\nok`),
  c('Upgrade', `GET /default/echo/u HTTP/1.1\r\n${H}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n`),
  c('a 20 kB head', `GET /default/echo/huge HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  c('a 16 KiB-ish head (below node limit)', `GET /default/echo/big HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(16_200)}\r\n\r\n`),
  c('a good request, then an unusual one on the same connection', `GET /default/echo/first HTTP/1.1\r\n${H}\r\nPOST /default/echo/second HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n`),
  c('garbage', '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03'),
  // 502 upstream_error, not a crash of the router (a throw inside the upstream socket's handler).
  c('a worker sending an invalid header', `GET /default/bad/ HTTP/1.1\r\n${H}\r\nGET /default/echo/still-up HTTP/1.1\r\n${H}\r\n`),
];

/** Deterministic mutations of valid requests. */
function fuzzCases(count: number): Case[] {
  let seed = 0x5eed;
  const rand = (n: number): number => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
  };
  const pick = <T,>(a: readonly T[]): T => a[Math.floor(rand(a.length))]!;
  const bases = [
    `GET /default/echo/fz?a=1 HTTP/1.1\r\n${H}X-A: b\r\nAccept: */*\r\n\r\n`,
    `POST /default/echo/fz HTTP/1.1\r\n${H}Content-Length: 5\r\nX-B: c d\r\n\r\nhello`,
    `GET /default/echo/fz1 HTTP/1.1\r\n${H}\r\nGET /default/echo/fz2 HTTP/1.1\r\n${H}Connection: close\r\n\r\n`,
  ];
  const bytes = [0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x2f, 0x3a, 0x3f, 0x23, 0x7f, 0x80, 0xff, 0x41, 0x61, 0x30, 0x7c];
  const out: Case[] = [];
  for (let i = 0; i < count; i++) {
    const base = Buffer.from(pick(bases), 'latin1');
    const pos = Math.floor(rand(base.length));
    let b: Buffer;
    const kind = Math.floor(rand(4));
    if (kind === 0) {
      b = Buffer.from(base);
      b[pos] = pick(bytes);
    } else if (kind === 1) {
      b = Buffer.concat([base.subarray(0, pos), Buffer.from([pick(bytes)]), base.subarray(pos)]);
    } else if (kind === 2) {
      b = Buffer.concat([base.subarray(0, pos), base.subarray(pos + 1)]);
    } else {
      // Repeat a line (a duplicated header, request line or blank line).
      const text = base.toString('latin1');
      const lines = text.split('\r\n');
      const at = Math.floor(rand(lines.length - 1));
      lines.splice(at, 0, lines[at]!);
      b = Buffer.from(lines.join('\r\n'), 'latin1');
    }
    out.push({ name: `fuzz ${i} (${['replace', 'insert', 'delete', 'repeat line'][kind]} at ${pos}): ${JSON.stringify(b.toString('latin1')).slice(0, 120)}`, bytes: b, oneByOne: true });
  }
  return out;
}

/**
 * Splits fuzzed bytes where the raw parser sees a request end (head + Content-Length), so both
 * routers get the same packets. Sent at once, node's server parses pipelined requests eagerly
 * and, when a later one is malformed, answers only its 400 — dropping the valid ones before it
 * — while the raw ingress answers them in order first. That difference is node's packet timing,
 * not a disagreement about where a request ends; with the split, a disagreement still shows
 * (node would wait for bytes the raw ingress counted as the next request, or the reverse).
 */
function segments(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const r = parseRequestHead(rest);
    const end = r.kind === 'head' ? r.headBytes + r.contentLength : rest.length;
    if (end >= rest.length) break;
    out.push(rest.subarray(0, end));
    rest = rest.subarray(end);
  }
  if (rest.length > 0) out.push(rest);
  return out;
}

/** Everything one connection answers to `bytes`, normalised for comparison. */
async function exchange(url: string, k: Case): Promise<unknown[]> {
  const reader = await ResponseReader.open(Number(new URL(url).port));
  const parts = k.oneByOne ? segments(k.bytes) : [k.bytes];
  reader.write(parts.shift()!);
  const out: unknown[] = [];
  try {
    for (let i = 0; i < 8; i++) {
      const r: ReadResult = await reader.next({ headRequest: k.head, timeoutMs: 600 });
      if (typeof r === 'string') {
        out.push(r);
        break;
      }
      const next = parts.shift();
      if (next) reader.write(next);
      let body: unknown = r.body.toString('latin1');
      try {
        const parsed = JSON.parse(body as string) as Record<string, unknown>;
        delete parsed.seq; // the upstream's arrival counter
        body = parsed;
      } catch {
        // not JSON: compare as text
      }
      out.push({ head: r.head.replace(/\r\nDate: [^\r]*/, '').replace(/\r\nKeep-Alive: timeout=\d+/, '\r\nKeep-Alive: timeout=<n>'), framing: r.framing, body });
    }
  } finally {
    reader.close();
  }
  return out;
}

async function compare(cases: Case[]): Promise<void> {
  const failures: string[] = [];
  // A few at a time: each case may wait out a short read timeout.
  for (let i = 0; i < cases.length; i += 12) {
    await Promise.all(
      cases.slice(i, i + 12).map(async (k) => {
        const [a, b] = await Promise.all([exchange(raw.url, k), exchange(node.url, k)]);
        try {
          expect(a).toEqual(b);
        } catch {
          failures.push(`${k.name}\n  raw:  ${JSON.stringify(a).slice(0, 800)}\n  node: ${JSON.stringify(b).slice(0, 800)}`);
        }
      }),
    );
  }
  expect(failures, failures.join('\n')).toEqual([]);
}

describe('--ingress raw answers exactly as --ingress node', () => {
  it('for hand-written requests, ordinary and odd', { timeout: 60_000 }, async () => {
    await compare(handWritten);
    // The common requests really took the raw path, the odd ones were handed over.
    const stats = (await (await request(`${raw.admin}/v1/stats`)).body.json()) as RouterStatsJson & { ingress: { mode: string; handovers: Record<string, number> } };
    expect(stats.ingress.mode).toBe('raw');
    expect(Object.keys(stats.ingress.handovers).sort()).toEqual(
      ['connection', 'content_length', 'expect', 'header_name', 'header_value', 'host', 'line_ending', 'method', 'obs_fold', 'target', 'too_large', 'transfer_encoding', 'version'].sort(),
    );
    const nodeStats = (await (await request(`${node.admin}/v1/stats`)).body.json()) as { ingress: { mode: string } };
    expect(nodeStats.ingress.mode).toBe('node');
    // Both keep an idle connection 65 s; raw announces 5 s (ingress/data-plane-listener.ts KEEP_ALIVE_HINT_MS).
    const announced = async (url: string) => {
      const res = await request(`${url}/default/echo/hint`);
      await res.body.dump();
      return res.headers['keep-alive'];
    };
    expect(await announced(raw.url)).toBe('timeout=5');
    expect(await announced(node.url)).toBe('timeout=65');
    // Equal is not enough here: both must answer 502 and carry on.
    const bad = (await exchange(raw.url, handWritten.find((k) => k.name === 'a worker sending an invalid header')!)) as Array<{ head: string; body: { code?: string; path?: string } }>;
    expect(bad[0]!.head).toMatch(/^HTTP\/1.1 502 /);
    expect(bad[0]!.body.code).toBe('upstream_error');
    expect(bad[1]!.body.path).toBe('/still-up');
  });

  it('for 300 fuzzed requests', { timeout: 120_000 }, async () => {
    await compare(fuzzCases(300));
  });

  it('for the header cases of issue 20 item 12, with the expected answers', { timeout: 60_000 }, async () => {
    const cases = [...forwardingCases(), ...framingCases()];
    await compare(cases);
    const answer = async (name: string) => {
      const [first] = (await exchange(raw.url, cases.find((k) => k.name === name)!)) as Array<{ head: string; body: { code?: string; rawHeaders?: string[] } }>;
      return { status: Number(first!.head.slice(9, 12)), code: first!.body.code, upstream: first!.body.rawHeaders };
    };
    expect(await answer('two Hosts with the same value')).toMatchObject({ status: 400, code: 'duplicate_host' });
    expect(await answer('Transfer-Encoding: gzip, chunked')).toMatchObject({ status: 501, code: 'unsupported_transfer_encoding' });
    expect((await answer('Transfer-Encoding: chunked, chunked')).status).toBe(400);
    expect(await answer('Transfer-Encoding gzip then chunked on two lines')).toMatchObject({ status: 400, code: 'bad_transfer_encoding' });
    expect((await answer('Transfer-Encoding: Chunked (case)')).status).toBe(200);
    const spoofed = (await answer('Forwarded, X-Real-IP and X-Forwarded-* spoofed together')).upstream!;
    expect(spoofed.join('\n')).not.toMatch(/6\.6\.6\.6|7\.7\.7\.7|evil|https/);
  });

  it('with --trusted-proxies, for the forwarding cases', { timeout: 60_000 }, async () => {
    const cases = forwardingCases();
    const failures: string[] = [];
    for (const k of cases) {
      const [a, b] = await Promise.all([exchange(rawTrusted.url, k), exchange(nodeTrusted.url, k)]);
      if (JSON.stringify(a) !== JSON.stringify(b)) failures.push(`${k.name}\n  raw:  ${JSON.stringify(a).slice(0, 800)}\n  node: ${JSON.stringify(b).slice(0, 800)}`);
    }
    expect(failures, failures.join('\n')).toEqual([]);
    const [first] = (await exchange(rawTrusted.url, cases[0]!)) as Array<{ body: { headers: Record<string, string> } }>;
    expect(first!.body.headers['x-forwarded-for']).toBe('6.6.6.6, 127.0.0.1');
    expect(first!.body.headers['x-forwarded-proto']).toBe('https');
  });
});

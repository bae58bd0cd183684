/**
 * Reference for bench/statesvc's Postgres rows: a bare HTTP server that answers each request
 * with the raw statement of the baseline (the same postgres.js select / upsert on `bench_raw`,
 * pool 32) and statesvc's response shapes — no auth, scoping, quotas, metrics, batching or change
 * feed. It prices the HTTP hop itself, so the bench can split statesvc's gap to the raw statement
 * into the hop (the HTTP server, loopback, the load generator's client) and Orrery's own code.
 *
 *   bare-statement-server.ts <database-url> [raw|node]
 *
 * `raw` (default) serves on @orrery/raw-http, the ingress statesvc answers state keys on; `node`
 * on node:http (the bench's BENCH_HTTP_INGRESS=node, so the hop always matches statesvc's).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { RawIngress, type IngressRequest, type IngressResponse } from '@orrery/raw-http';

const sql = postgres(process.argv[2]!, { max: 32, onnotice: () => {} });
const ingress = process.argv[3] ?? 'raw';
if (ingress !== 'raw' && ingress !== 'node') throw new Error(`ingress must be raw or node, got ${ingress}`);
let version = 0;

/** The one answer both servers give: status and a JSON body. */
type Answer = (status: number, body: string) => void;

function serve(method: string, url: string, readBody: (done: (body: string) => void) => void, answer: Answer): void {
  const key = url.slice('/v1/state/'.length);
  const fail = (status: number, code: string) => answer(status, `{"error":"${code}","code":"${code}"}`);
  if (method === 'GET') {
    sql`select v from bench_raw where k = ${key}`.then((rows) => {
      if (rows.length === 0) return fail(404, 'not_found');
      answer(200, `{"value":${rows[0]!.v as string}}`);
    }, () => fail(500, 'internal'));
    return;
  }
  readBody((value) => {
    sql`insert into bench_raw (k, v) values (${key}, ${value}) on conflict (k) do update set v = excluded.v`.then(
      () => answer(200, `{"version":${++version}}`),
      () => fail(500, 'internal'),
    );
  });
}

const nodeServer = createServer((req, res) => {
  const answer = (status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  serve(req.method!, req.url!, (done) => collect(req, done), answer);
});
nodeServer.keepAliveTimeout = 65_000;

function collect(body: NonNullable<IngressRequest['body']> | IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  body.on('data', (c: Buffer) => chunks.push(c));
  body.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

function rawHandle(req: IngressRequest, res: IngressResponse): void {
  const answer = (status: number, body: string) => {
    res.writeHead(status, undefined, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))]);
    res.end(body);
  };
  serve(req.method, req.url, (done) => (req.body ? collect(req.body, done) : done('')), answer);
}

const ready = (port: number) => console.log(`listening http://127.0.0.1:${port}`);
if (ingress === 'raw') {
  // node's server is only the fallback for what the strict parser leaves (nothing the bench sends).
  const raw = new RawIngress({ handle: rawHandle, fallback: nodeServer, keepAliveTimeoutMs: 65_000, headersTimeoutMs: 60_000 });
  void raw.listen(0, '127.0.0.1').then((a) => ready(a.port));
  process.on('SIGTERM', () => void raw.close(1_000).then(() => sql.end({ timeout: 2 })).then(() => process.exit(0)));
} else {
  nodeServer.listen(0, '127.0.0.1', () => ready((nodeServer.address() as AddressInfo).port));
  process.on('SIGTERM', () => nodeServer.close(() => void sql.end({ timeout: 2 }).then(() => process.exit(0))));
}

/**
 * Reference for bench/statesvc's Postgres rows: a bare node:http server that answers each request
 * with the raw statement of the baseline (the same postgres.js select / upsert on `bench_raw`,
 * pool 32) and statesvc's response shapes — no auth, scoping, quotas, metrics, batching or change
 * feed. It prices the HTTP hop itself, so the bench can split statesvc's gap to the raw statement
 * into the hop (node's HTTP server, loopback, the load generator's client) and Orrery's own code.
 * Takes the database URL as its only argument.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';

const sql = postgres(process.argv[2]!, { max: 32, onnotice: () => {} });
let version = 0;
const fail = (res: import('node:http').ServerResponse, status: number, code: string) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`{"error":"${code}","code":"${code}"}`);
};
const server = createServer((req, res) => {
  const key = req.url!.slice('/v1/state/'.length);
  if (req.method === 'GET') {
    sql`select v from bench_raw where k = ${key}`.then((rows) => {
      if (rows.length === 0) return fail(res, 404, 'not_found');
      const body = `{"value":${rows[0]!.v as string}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, () => fail(res, 500, 'internal'));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const value = Buffer.concat(chunks).toString('utf8');
    sql`insert into bench_raw (k, v) values (${key}, ${value}) on conflict (k) do update set v = excluded.v`.then(() => {
      const body = `{"version":${++version}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, () => fail(res, 500, 'internal'));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => void sql.end({ timeout: 2 }).then(() => process.exit(0))));

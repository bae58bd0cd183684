/**
 * Baseline for bench/statesvc: a bare node:http server doing the same Map get/set with the
 * same response shapes, without auth, scoping, quotas or metrics.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const map = new Map<string, string>();
let version = 0;
const server = createServer((req, res) => {
  const key = req.url!.slice('/v1/state/'.length);
  if (req.method === 'GET') {
    const v = map.get(key);
    if (v === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found","code":"not_found"}');
      return;
    }
    const body = `{"value":${v}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    map.set(key, Buffer.concat(chunks).toString('utf8'));
    const body = `{"version":${++version}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

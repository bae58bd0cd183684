// Test upstream worker: answers JSON {name, seq, path, method, headers, rawHeaders, body}; `?delay=ms` sleeps first.
// With --exclusive it answers 500 whenever it sees two requests at once (requestsPerPod tests).
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, name: { type: 'string', default: 'upstream' }, exclusive: { type: 'boolean', default: false } } });
let inflight = 0;
let overlaps = 0;
let served = 0;
let arrivals = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/__stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name: values.name, served, overlaps, inflight }));
    return;
  }
  inflight++;
  const seq = ++arrivals;
  const overlapped = inflight > 1;
  if (overlapped) overlaps++;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://x');
    const delay = Number(url.searchParams.get('delay') ?? 0);
    setTimeout(() => {
      served++;
      inflight--;
      const status = values.exclusive && overlapped ? 500 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-upstream': values.name, connection: 'keep-alive', 'x-hop': 'drop-me' });
      res.end(JSON.stringify({ name: values.name, seq, path: req.url, method: req.method, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
    }, delay);
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

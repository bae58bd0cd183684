// Benchmark upstream: the smallest useful HTTP/1.1 keep-alive server (fixed 13-byte body).
import http from 'node:http';

const body = Buffer.from('hello, orrery');
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));

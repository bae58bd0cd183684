// Reference for the router bench: the reverse proxy a node developer writes with node:http alone —
// a keep-alive agent to the upstream, headers passed through, bodies piped. Priced beside the
// router to show what node's HTTP layer costs per proxied request before any of Orrery's work.
import http from 'node:http';

const upstreamPort = Number(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const server = http.createServer((req, res) => {
  const up = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
  req.pipe(up);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));

#!/usr/bin/env node
// orrery-console: serves the built console (next build) on one port and prints the
// `listening http://HOST:PORT` line the platform supervisor waits for. The admin API is
// reached through the /trpc route, which forwards to --api-url (ORRERY_API_URL).
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = 'usage: orrery-console [--host 127.0.0.1] [--port 3000] --api-url http://OPERATOR (or ORRERY_API_URL)';
let values;
try {
  ({ values } = parseArgs({
    options: { host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: process.env.PORT ?? '3000' }, 'api-url': { type: 'string' }, help: { type: 'boolean' } },
    strict: true,
  }));
} catch (err) {
  process.stderr.write(`orrery-console: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const apiUrl = values['api-url'] ?? process.env.ORRERY_API_URL;
if (!apiUrl) {
  process.stderr.write(`orrery-console: --api-url (or ORRERY_API_URL) is required: the operator URL that serves /trpc/\n${USAGE}\n`);
  process.exit(2);
}
process.env.ORRERY_API_URL = apiUrl;
process.env.NEXT_TELEMETRY_DISABLED = '1';
const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(dir, '.next', 'BUILD_ID'))) {
  process.stderr.write('orrery-console: the console is not built; run `npm run build -w @orrery/console` (orrery up does this)\n');
  process.exit(1);
}
const port = Number(values.port);
const { default: next } = await import('next');
const app = next({ dev: false, dir, hostname: values.host, port });
await app.prepare();
const handle = app.getRequestHandler();
const server = createServer((req, res) => {
  if (req.url === '/healthz' || req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  void handle(req, res);
});
server.listen(port, values.host, () => {
  const a = server.address();
  process.stdout.write(`listening http://${values.host}:${a.port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

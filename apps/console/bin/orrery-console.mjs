#!/usr/bin/env node
// orrery-console: serves the built console (next build) on one port and prints the
// `listening http://HOST:PORT` line the platform supervisor waits for. The admin API is
// reached through the /trpc route, which forwards to --api-url (ORRERY_API_URL).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `usage: orrery-console [--host 127.0.0.1] [--port 3000] --api-url http://OPERATOR (or ORRERY_API_URL)
  [--trusted-proxies ADDR|CIDR|loopback,… (a TLS ingress in front: its X-Forwarded-Proto/-For/-Host are believed; or ORRERY_TRUSTED_PROXIES; default none)]
  [--public-origin https://console.example (the URL users open, when a proxy rewrites Host; or ORRERY_PUBLIC_ORIGIN)]`;
let values;
try {
  ({ values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      'api-url': { type: 'string' },
      'trusted-proxies': { type: 'string' },
      'public-origin': { type: 'string' },
      help: { type: 'boolean' },
    },
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

// Who may speak for the client in X-Forwarded-* (the /trpc route reads it; src/app/trpc). Checked
// here so a typo stops the start instead of failing every request.
const trustedProxies = values['trusted-proxies'] ?? process.env.ORRERY_TRUSTED_PROXIES ?? '';
for (const entry of trustedProxies.split(',').map((e) => e.trim()).filter(Boolean)) {
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr);
  const max = family === 6 ? 128 : 32;
  const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
  if (entry !== 'loopback' && (!family || !okBits || extra !== undefined)) {
    process.stderr.write(`orrery-console: --trusted-proxies: "${entry}" is not an address, a CIDR range (10.0.0.0/8, fd00::/8) or "loopback"\n${USAGE}\n`);
    process.exit(2);
  }
}
process.env.ORRERY_TRUSTED_PROXIES = trustedProxies;
const publicOrigin = values['public-origin'] ?? process.env.ORRERY_PUBLIC_ORIGIN ?? '';
for (const o of publicOrigin.split(',').map((e) => e.trim()).filter(Boolean)) {
  if (!URL.canParse(o) || !/^https?:$/.test(new URL(o).protocol)) {
    process.stderr.write(`orrery-console: --public-origin: "${o}" is not an http(s) URL\n${USAGE}\n`);
    process.exit(2);
  }
}
process.env.ORRERY_PUBLIC_ORIGIN = publicOrigin;
// The route cannot see the TCP peer: every request carries it in x-orrery-peer, overwritten here,
// with a nonce only this process knows (src/lib/peer-facts.ts), so a client cannot forge it.
const peerNonce = randomBytes(16).toString('hex');
process.env.ORRERY_CONSOLE_PEER_NONCE = peerNonce;
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
  req.headers['x-orrery-peer'] = `${peerNonce} ${req.socket.remoteAddress ?? '-'} ${req.socket.encrypted ? 1 : 0}`;
  void handle(req, res);
});
server.listen(port, values.host, () => {
  const a = server.address();
  process.stdout.write(`listening http://${values.host}:${a.port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

import { createServer } from 'node:net';

/**
 * Ports are picked below the kernel's ephemeral range (Linux: 32768–60999 by default). A port the
 * kernel hands out for a listener on port 0 comes from that range, which is also where every
 * outgoing connection of every process gets its local port: between our check and the member's
 * bind, a connection elsewhere on the machine (the Kubernetes tests run beside these) can take it
 * ("bind: address already in use"). Below the range only other listeners compete, and they check.
 */
const LOW = 20_000;
const HIGH = 32_767;
const ATTEMPTS = 64;

function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const got = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(got || undefined));
    });
  });
}

/** A port that was free on `host` a moment ago: a random one below the ephemeral range, else one the kernel picks. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = await tryListen(LOW + Math.floor(Math.random() * (HIGH - LOW + 1)), host);
    if (port) return port;
  }
  const port = await tryListen(0, host);
  if (!port) throw new Error('could not pick a free port');
  return port;
}

/**
 * `n` distinct free ports, none of them in `taken` (ports handed out earlier that may not be
 * bound yet: each member of a cluster asks in turn, and a port checked free for one member is
 * still free when the next one asks — two members once got the same peer port). The ports given
 * are added to `taken`.
 */
export async function freePorts(n: number, host = '127.0.0.1', taken: Set<number> = new Set()): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = await freePort(host);
    if (taken.has(port)) continue;
    taken.add(port);
    ports.push(port);
  }
  return ports;
}

import { createServer } from 'node:net';

/** A port that was free on 127.0.0.1 a moment ago (the kernel picked it for a throwaway listener). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** `n` distinct free ports; asked for all at once so two members never receive the same one. */
export async function freePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort(host));
  return [...ports];
}

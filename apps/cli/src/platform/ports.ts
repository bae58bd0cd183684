/**
 * Port plan of the local platform. `--port-base N` gives fixed, memorable ports (N, N+1, …);
 * `--port-base 0` asks the kernel for free ones (tests). Either way every URL is known before
 * any process starts, so the operator can be told where statesvc and the registry will be.
 */
import { createServer } from 'node:net';

export const PORT_SLOTS = ['router1', 'router2', 'operator', 'statesvc', 'registry', 'registryAdmin', 'router1Admin', 'router2Admin', 'console'] as const;
export type PortSlot = (typeof PORT_SLOTS)[number];
export type PortPlan = Record<PortSlot, number>;

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

/** `n` distinct free ports, asked for together so no two slots receive the same one. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

export async function planPorts(base: number): Promise<PortPlan> {
  const ports = base > 0 ? PORT_SLOTS.map((_, i) => base + i) : await freePorts(PORT_SLOTS.length);
  return Object.fromEntries(PORT_SLOTS.map((slot, i) => [slot, ports[i]!])) as PortPlan;
}

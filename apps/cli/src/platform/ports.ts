/**
 * Port plan of the local platform. `--port-base N` gives fixed, memorable ports (N, N+1, …);
 * `--port-base 0` asks the kernel for free ones (tests). Either way every URL is known before
 * any process starts, so the operator can be told where statesvc and the registry will be.
 */
import { freePorts } from '@orrery/etcdcluster';

// New slots go last: --port-base N keeps every earlier component on the port it had.
export const PORT_SLOTS = ['router1', 'router2', 'operator', 'statesvc', 'registry', 'registryAdmin', 'router1Admin', 'router2Admin', 'console', 'nats', 'router1Tls', 'router2Tls'] as const;
export type PortSlot = (typeof PORT_SLOTS)[number];
export type PortPlan = Record<PortSlot, number>;

export async function planPorts(base: number): Promise<PortPlan> {
  const ports = base > 0 ? PORT_SLOTS.map((_, i) => base + i) : await freePorts(PORT_SLOTS.length);
  return Object.fromEntries(PORT_SLOTS.map((slot, i) => [slot, ports[i]!])) as PortPlan;
}

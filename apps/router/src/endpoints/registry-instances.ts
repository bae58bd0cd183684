/**
 * Maps StellMap registry instances to router endpoints. Workers register as
 * service `orrery.functions.<namespace>.<function>.<revision>` with an endpoint named `http`
 * and labels `orrery.dev/function`, `orrery.dev/revision` (the labels win over the name).
 */
import type { EndpointRecord } from '../admit/endpoint-index.ts';

export const WORKER_SERVICE_PREFIX = 'orrery.functions';

export interface RegistryInstance {
  namespace?: string;
  service?: string;
  instanceId?: string;
  labels?: Record<string, string>;
  metadata?: Record<string, string>;
  endpoints?: Array<{ name?: string; protocol?: string; host?: string; port?: number }>;
}

export function instanceId(i: RegistryInstance): string {
  return `${i.namespace ?? ''}/${i.service ?? ''}/${i.instanceId ?? ''}`;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The endpoint record of an instance, or undefined when it is not an Orrery worker with an http endpoint. */
export function instanceToEndpoint(i: RegistryInstance): EndpointRecord | undefined {
  if (!i.namespace || !i.service?.startsWith(`${WORKER_SERVICE_PREFIX}.`)) return undefined;
  const parts = i.service.split('.');
  const fn = i.labels?.['orrery.dev/function'] ?? parts[3];
  const rev = i.labels?.['orrery.dev/revision'] ?? parts[4];
  if (!fn || !rev) return undefined;
  const ep = i.endpoints?.find((e) => e.name === 'http') ?? i.endpoints?.find((e) => e.protocol === 'http');
  if (!ep?.host || typeof ep.port !== 'number') return undefined;
  // Registered means ready: the registry drops instances whose lease lapsed, and draining workers deregister.
  return { namespace: i.namespace, function: fn, revision: rev, address: hostPort(ep.host, ep.port), ready: true };
}

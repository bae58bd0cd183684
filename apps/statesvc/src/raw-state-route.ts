import type { ParsedHead } from '@orrery/raw-http';

const METHODS = new Set(['GET', 'PUT', 'DELETE', 'POST']);

/**
 * Which requests statesvc's raw ingress serves itself: the state-key requests (`/v1/state/{key}`,
 * the hot path) whose body is within the service's cap. Everything else — lists, change streams,
 * fences, admin, probes, metrics, HEAD, and any body over the cap, which node's server refuses
 * without reading it (refuseRestOfBody) — goes to node:http with its connection.
 */
export function rawStateRoute(head: Pick<ParsedHead, 'method' | 'target' | 'contentLength'>, maxBodyBytes: number): boolean {
  return head.target.startsWith('/v1/state/') && METHODS.has(head.method) && head.contentLength <= maxBodyBytes;
}

/**
 * One HTTP call to a statesvc as a function would make it (for the int tests): a token derived
 * for the scope, the scope headers, and the answer read as JSON when it is JSON.
 */
import { deriveStateToken } from '@orrery/auth';

export interface ScopedCall {
  /** Namespace ('' leaves the header out). */
  ns?: string;
  /** Keyspace ('' leaves the header out). */
  ks?: string;
  /** A token to send instead of the scope's own; null sends none. */
  token?: string | null;
  body?: string;
  /** Extra headers; one named here wins over the derived authorization and scope headers. */
  headers?: Record<string, string>;
}

export interface ScopedAnswer {
  status: number;
  headers: Headers;
  // The tests read whatever JSON came back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

export async function scopedStateCall(url: string, master: Buffer, defaults: { ns: string; ks: string }, method: string, path: string, c: ScopedCall = {}): Promise<ScopedAnswer> {
  const ns = c.ns ?? defaults.ns;
  const ks = c.ks ?? defaults.ks;
  const headers: Record<string, string> = { ...c.headers };
  if (c.token !== null && !('authorization' in headers)) headers.authorization = `Bearer ${c.token ?? deriveStateToken(master, ns, ks)}`;
  if (c.ns !== '' && !('x-orrery-state-namespace' in headers)) headers['x-orrery-state-namespace'] = ns;
  if (c.ks !== '' && !('x-orrery-state-keyspace' in headers)) headers['x-orrery-state-keyspace'] = ks;
  const res = await fetch(url + path, { method, headers, body: c.body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON (metrics are text) */
  }
  return { status: res.status, headers: res.headers, json, text };
}

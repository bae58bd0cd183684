/**
 * The seam every trigger (cron, queue) invokes a Function through: one HTTP request to the
 * Function as a client would send it, through the router, so scale from zero, the traffic split,
 * tags and sticky routing apply to triggered calls as to any other. Where the router is differs
 * per backend (backends/local/local-trigger-invoker.ts, backends/kubernetes/kube-trigger-invoker.ts);
 * the request itself is router-trigger-invoker.ts.
 */

/** Names the trigger that sent a request, `cron/<name>` or `queue/<name>`. Informational only: anyone can send it. */
export const TRIGGER_HEADER = 'Orrery-Trigger';

export interface TriggerInvocation {
  namespace: string;
  function: string;
  /** `<kind>/<name>`, e.g. `cron/nightly`: sent as Orrery-Trigger and used in errors. */
  trigger: string;
  /** GET, POST, PUT, PATCH or DELETE. */
  method: string;
  /** Below the Function's own path, starting with "/"; may carry a query string. */
  path: string;
  /**
   * Headers to send: the trigger's own (validated by @orrery/spec: no hop-by-hop, Host or
   * Orrery-* names), then the trigger kind's Orrery-* headers, which win on a clash.
   */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** No complete answer within this long: the call fails with a timeout error. */
  timeoutMs: number;
  /** Keep up to this many bytes of the answer's body (default 0: read and dropped). */
  keepBodyBytes?: number;
  signal?: AbortSignal;
}

export interface TriggerResult {
  /** The HTTP status, when the router or the Function answered. */
  status?: number;
  /** Why there is no answer (refused, timeout, aborted): one line, never a header or body value. */
  error?: string;
  startedAt: Date;
  finishedAt: Date;
  /** The first `keepBodyBytes` of the answer's body, when asked for. */
  body?: Buffer;
}

export interface TriggerInvoker {
  /** Never throws: a failure is a result with `error`. */
  invoke(call: TriggerInvocation): Promise<TriggerResult>;
}

/** A 2xx answer: the only outcome a trigger counts as a success (3xx is not followed). */
export function invocationSucceeded(r: Pick<TriggerResult, 'status'>): boolean {
  return r.status !== undefined && r.status >= 200 && r.status < 300;
}

/** The request URL: the router's base, then /<namespace>/<function>, then the trigger's path. */
export function invocationUrl(routerUrl: string, call: Pick<TriggerInvocation, 'namespace' | 'function' | 'path'>): string {
  const path = call.path.startsWith('/') ? call.path : `/${call.path}`;
  return `${routerUrl.replace(/\/+$/, '')}/${encodeURIComponent(call.namespace)}/${encodeURIComponent(call.function)}${path}`;
}

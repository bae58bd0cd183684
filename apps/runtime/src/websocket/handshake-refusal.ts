/**
 * Whether the worker takes a WebSocket handshake at all, decided before it queues for a
 * concurrency slot — the same answers an HTTP request gets where the case is the same (draining,
 * not specialized), and one code per reason otherwise. Pure.
 */

export interface HandshakeFacts {
  /** The handshake's path is one of the runtime's own routes (they never upgrade). */
  runtimePath: boolean;
  draining: boolean;
  /** A function is loaded (false: a pool worker waiting for /v1/specialize). */
  specialized: boolean;
  /** The function module exports a websocket handler. */
  hasWebSocketHandler: boolean;
  /** `namespace/function`, for the message. */
  functionName: string;
  /** The request's Upgrade header as node joined it. */
  upgrade: string | undefined;
}

export interface HandshakeRefusal {
  status: 400 | 404 | 503;
  code: 'not_found' | 'draining' | 'not_specialized' | 'upgrade_not_supported' | 'websocket_not_supported';
  error: string;
}

/** The protocol tokens of an Upgrade value, lower-cased. */
function protocols(upgrade: string | undefined): string[] {
  return (upgrade ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
}

/** undefined: go on (queue for a slot, then the handshake); otherwise answer this and close. */
export function refuseHandshake(f: HandshakeFacts): HandshakeRefusal | undefined {
  if (f.runtimePath) return { status: 404, code: 'not_found', error: 'the runtime routes (/healthz, /readyz, /v1/*) do not take WebSocket connections' };
  if (f.draining) return { status: 503, code: 'draining', error: 'worker is draining; send the request to another worker' };
  if (!f.specialized) return { status: 503, code: 'not_specialized', error: 'no function loaded yet: this pool worker is waiting for POST /v1/specialize' };
  const asked = protocols(f.upgrade);
  if (asked.length !== 1 || asked[0] !== 'websocket') {
    return { status: 400, code: 'upgrade_not_supported', error: `the worker switches connections only to websocket (this request asked for ${asked.join(', ') || 'nothing'})` };
  }
  if (!f.hasWebSocketHandler) {
    return { status: 400, code: 'websocket_not_supported', error: `function ${f.functionName} does not take WebSocket connections: its module exports no websocket handler` };
  }
  return undefined;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { sendJson } from '@orrery/control-http';

/**
 * The operator's control endpoints (`/v1/autoscaler/*`, `/v1/executor/*`) take the same bearer
 * token as its store API (`--store-token-file`): whoever may read the store may poke and
 * specialize, nobody else. Without a token, as for the store, only loopback callers pass.
 * Compared in constant time so the token cannot be guessed byte by byte from response times.
 */
export function createBearerTokenGuard(token: string | undefined) {
  const expected = token ? Buffer.from(token) : undefined;

  function authorized(req: IncomingMessage): boolean {
    if (!expected) return isLoopback(req.socket.remoteAddress);
    const header = req.headers.authorization ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** True when the request may go on; otherwise answers 401 and returns false. */
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (authorized(req)) return true;
    // The body is not read: drop the connection after the answer instead of draining it.
    res.shouldKeepAlive = false;
    sendJson(res, 401, { error: expected ? 'missing or wrong bearer token (the store token)' : 'only loopback callers may use this endpoint without a store token', code: 'unauthorized' });
    return false;
  };
}

function isLoopback(addr: string | undefined): boolean {
  return !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));
}

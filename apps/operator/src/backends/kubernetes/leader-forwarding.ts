import { type IncomingMessage, type ServerResponse, request } from 'node:http';
import { sendJson } from '@orrery/control-http';

/** Lease annotation where the leader publishes the URL of its control endpoints. */
export const LEADER_URL_ANNOTATION = 'orrery.dev/leader-url';
/** Marks a forwarded request: a follower never forwards twice (no loops while the Lease moves). */
export const FORWARDED_HEADER = 'x-orrery-forwarded-by';

export interface LeaderForwardingOptions {
  /** This replica's identity (written into the forwarded header). */
  identity: string;
  /** The leader's handler when this replica leads; undefined otherwise. */
  local: () => ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
  /** The current leader's URL from the Lease; undefined when there is none. */
  leaderUrl: () => string | undefined;
  /** Upper bound for one forwarded call (a poke may wait up to 30 s for a worker). */
  timeoutMs?: number;
}

/**
 * The KPA and the pool executor live on the Lease holder only, while routers reach the
 * operator through a Service that picks any replica. A follower therefore streams such calls
 * to the leader, whose URL the leader writes on the Lease: no leader-only Service, and no
 * second KPA whose decisions could fight the first.
 */
export function createLeaderForwarding(o: LeaderForwardingOptions) {
  const timeoutMs = o.timeoutMs ?? 35_000;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const local = o.local();
    if (local) {
      if (!(await local(req, res))) sendJson(res, 404, { error: `no route ${req.url}`, code: 'not_found' });
      return;
    }
    const target = o.leaderUrl();
    if (!target || req.headers[FORWARDED_HEADER]) {
      res.setHeader('retry-after', '1');
      sendJson(res, 503, { error: target ? 'the replica this was forwarded to no longer leads; retry' : 'no operator replica leads right now; retry in a second', code: 'not_leader' });
      return;
    }
    const url = new URL(req.url ?? '/', target);
    const headers: Record<string, string> = { [FORWARDED_HEADER]: o.identity };
    for (const name of ['authorization', 'content-type', 'content-length']) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    await new Promise<void>((resolve) => {
      const up = request(url, { method: req.method, headers, timeout: timeoutMs }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
        answer.pipe(res);
        answer.on('end', resolve);
        answer.on('error', () => resolve());
      });
      up.on('timeout', () => up.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      up.on('error', (err) => {
        if (!res.headersSent) sendJson(res, 502, { error: `forwarding to the leader at ${target} failed: ${err.message}`, code: 'leader_unreachable' });
        else res.destroy();
        resolve();
      });
      req.pipe(up);
    });
  };
}

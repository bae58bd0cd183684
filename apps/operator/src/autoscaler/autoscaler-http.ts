import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson } from '@orrery/control-http';
import { BodyError, readJson } from '../http/json-body.ts';
import type { Autoscaler } from './autoscaler.ts';

const StatsBody = z.object({
  router: z.string().min(1).default('router'),
  revisions: z
    .array(
      z.object({
        namespace: z.string().min(1),
        function: z.string(),
        revision: z.string().min(1),
        averageConcurrency: z.number().nonnegative().default(0),
        requests: z.number().nonnegative().default(0),
        windowMs: z.number().nonnegative().default(1000),
        inflight: z.number().nonnegative().default(0),
        queued: z.number().nonnegative().default(0),
      }),
    )
    .max(100_000),
});

const PokeBody = z.object({
  namespace: z.string().min(1),
  function: z.string().min(1),
  revision: z.string().min(1),
  queueLength: z.number().int().nonnegative().default(1),
  /** Requests of the revision in flight on this router when the poke was sent (demand beside the queue). */
  inflight: z.number().int().nonnegative().default(0),
  router: z.string().min(1).default('router'),
  /** Hold the answer up to this long for the revision's first ready worker and answer its address. */
  waitMs: z.number().int().nonnegative().max(30_000).default(0),
});

export interface AutoscalerHandlerOptions {
  /** Ready worker addresses of a revision, waiting up to `timeoutMs` for the first (deploy revisions the KPA scales). */
  readyAddresses?: (namespace: string, revision: string, timeoutMs: number) => Promise<string[]>;
  /** Spawn and listening times (performance.now()) of the first ready worker, for the answer's `timing`. */
  firstReadyTimes?: (namespace: string, revision: string) => { spawnedAt: number; listeningAt: number } | undefined;
}

/**
 * `POST /v1/autoscaler/stats` (each router replica, once a second; answered with the
 * activator's place per reported revision, `AutoscalerStatsAnswer`) and
 * `POST /v1/autoscaler/poke` (a request waits for a revision). Returns false for other paths.
 * A poke with `waitMs` is answered once the revision has a ready worker (or the wait is over),
 * with `addresses`: the router admits them at once, as it does a pool specialization's.
 */
export function createAutoscalerHandler(autoscaler: Autoscaler, o: AutoscalerHandlerOptions = {}) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/v1/autoscaler/stats' && path !== '/v1/autoscaler/poke') return false;
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'use POST', code: 'method_not_allowed' });
      return true;
    }
    try {
      const raw = await readJson(req);
      if (path === '/v1/autoscaler/stats') {
        const body = StatsBody.safeParse(raw);
        if (!body.success) return bad(res, 'body must be {router, revisions: [{namespace, function, revision, averageConcurrency, requests, windowMs}]}');
        autoscaler.recordStats(body.data.router, body.data.revisions);
        // The answer tells this router where the activator stands for each revision (AutoscalerStatsAnswer).
        sendJson(res, 202, { ok: true, activator: autoscaler.activatorModes(body.data.revisions) });
        return true;
      } else {
        const body = PokeBody.safeParse(raw);
        if (!body.success) return bad(res, 'body must be {namespace, function, revision, queueLength?}');
        const { namespace, revision, waitMs } = body.data;
        const poked = performance.now();
        autoscaler.poke(namespace, revision, body.data.queueLength, body.data.router, body.data.inflight);
        if (waitMs > 0 && o.readyAddresses) {
          const addresses = await o.readyAddresses(namespace, revision, waitMs);
          // timing: where a deploy cold start's time went in the operator (read by bench/coldstart).
          const t = addresses.length ? o.firstReadyTimes?.(namespace, revision) : undefined;
          const timing = t && t.spawnedAt >= poked ? { toSpawnMs: Math.round(t.spawnedAt - poked), spawnToListeningMs: Math.round(t.listeningAt - t.spawnedAt), answerMs: Math.round(performance.now() - t.listeningAt) } : undefined;
          sendJson(res, 202, { ok: true, addresses, timing });
          return true;
        }
      }
      sendJson(res, 202, { ok: true });
    } catch (err) {
      if (err instanceof BodyError) sendJson(res, err.status, { error: err.message, code: err.code });
      else sendJson(res, 500, { error: 'internal error', code: 'internal' });
    }
    return true;
  };
}

function bad(res: ServerResponse, message: string): true {
  sendJson(res, 400, { error: message, code: 'invalid_body' });
  return true;
}

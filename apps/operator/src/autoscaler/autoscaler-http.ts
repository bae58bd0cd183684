import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { BodyError, readJson, sendJson } from '../http/json-body.ts';
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
  router: z.string().min(1).default('router'),
});

/**
 * `POST /v1/autoscaler/stats` (each router replica, once a second) and
 * `POST /v1/autoscaler/poke` (a request waits for a revision). Returns false for other paths.
 */
export function createAutoscalerHandler(autoscaler: Autoscaler) {
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
      } else {
        const body = PokeBody.safeParse(raw);
        if (!body.success) return bad(res, 'body must be {namespace, function, revision, queueLength?}');
        autoscaler.poke(body.data.namespace, body.data.revision, body.data.queueLength, body.data.router);
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

import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { OrreryFunction, StateCredentials } from '@orrery/spec';
import { sendJson } from '@orrery/control-http';
import { BodyError, readJson } from '../http/json-body.ts';
import type { ExecutorView } from './executor-view.ts';
import { type PoolSpecializer, SpecializeError } from './specialization.ts';

const Body = z.object({ namespace: z.string().min(1), function: z.string().min(1), revision: z.string().min(1) });

/**
 * `POST /v1/executor/specialize {namespace, function, revision}` → `200 {address}`: the router's
 * cold path for pool-executor revisions. Deploy revisions answer `409 not_pool_executor` (the
 * router remembers that and only waits for the autoscaler).
 */
export function createSpecializeHandler(o: { view: Pick<ExecutorView, 'revision' | 'fn'>; pool: PoolSpecializer; credentials: (fn: OrreryFunction) => StateCredentials | undefined }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if ((req.url ?? '').split('?')[0] !== '/v1/executor/specialize') return false;
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'use POST', code: 'method_not_allowed' });
      return true;
    }
    try {
      const started = performance.now();
      const parsed = Body.safeParse(await readJson(req, 64 * 1024));
      if (!parsed.success) {
        sendJson(res, 400, { error: 'body must be {namespace, function, revision}', code: 'invalid_body' });
        return true;
      }
      const { namespace, revision } = parsed.data;
      const rev = await o.view.revision(namespace, revision);
      if (!rev || rev.spec.function !== parsed.data.function) {
        sendJson(res, 404, { error: `revision ${namespace}/${revision} of function ${parsed.data.function} not found`, code: 'revision_not_found' });
        return true;
      }
      if (rev.spec.template.executor !== 'pool') {
        sendJson(res, 409, { error: `revision ${revision} uses the ${rev.spec.template.executor} executor; wait for the autoscaler`, code: 'not_pool_executor' });
        return true;
      }
      const fn = await o.view.fn(namespace, rev.spec.function);
      const lookupMs = performance.now() - started;
      const { address, timing } = await o.pool.specialize(rev, fn ? o.credentials(fn) : undefined);
      // timing: where a cold start's time went in the operator (read by bench/coldstart).
      const totalMs = Math.round(performance.now() - started);
      sendJson(res, 200, { namespace, function: rev.spec.function, revision, address, timing: { lookupMs: Math.round(lookupMs), totalMs, ...timing } });
    } catch (err) {
      if (err instanceof BodyError || err instanceof SpecializeError) sendJson(res, err.status, { error: err.message, code: err.code });
      else sendJson(res, 500, { error: `specialize failed: ${(err as Error).message}`, code: 'internal' });
    }
    return true;
  };
}

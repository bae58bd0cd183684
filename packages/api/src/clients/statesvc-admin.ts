import { TRPCError } from '@trpc/server';
import { signAdminUrl } from '@orrery/auth';
import { checkAnswer, type StateKeyspaceUsage, type StateNamespaceUsage, type WireSchema } from '@orrery/spec';
import type { ApiServices } from '../context.ts';
import { fetchJson } from './fetch-json.ts';

/** Signed admin URLs live this long: enough for one call, useless if logged. */
const SIGNATURE_TTL_S = 60;

/** statesvc's answers, as its wire contract in @orrery/spec defines them. */
export type KeyspaceUsage = StateKeyspaceUsage;
export type NamespaceUsage = StateNamespaceUsage;

/**
 * GET one statesvc admin route, signed with the master key (pass-through statesvc: unsigned),
 * and check the answer against the route's schema: a body that does not match is a bad_response
 * (BAD_GATEWAY), never passed on half-understood.
 */
export async function statesvcAdminGet<T>(services: ApiServices, pathAndQuery: string, schema: WireSchema<T>): Promise<T> {
  if (!services.statesvc) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: 'the API was started without a statesvc URL; state usage is unavailable' });
  const { url, masterKey } = services.statesvc;
  const target = masterKey ? signAdminUrl(masterKey, 'GET', pathAndQuery, Date.now() / 1000 + SIGNATURE_TTL_S) : pathAndQuery;
  const answer = await fetchJson('statesvc', new URL(target, url).toString(), services.upstreamTimeoutMs ?? 3000);
  // Never echo the signed URL in messages: it is a credential until it expires.
  const path = pathAndQuery.split('?')[0];
  if (answer.status !== 200) {
    const msg = (answer.body as { error?: string } | undefined)?.error ?? `status ${answer.status}`;
    throw new TRPCError({ code: answer.status === 404 ? 'NOT_FOUND' : 'BAD_GATEWAY', message: `statesvc admin read failed: ${msg}` });
  }
  const checked = checkAnswer(schema, answer.body);
  if (!checked.ok) {
    throw new TRPCError({ code: 'BAD_GATEWAY', message: `bad_response: statesvc's ${path} answer does not match this API's contract (is statesvc a different version?): ${checked.problem}` });
  }
  return checked.value;
}

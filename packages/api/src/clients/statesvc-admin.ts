import { TRPCError } from '@trpc/server';
import { signAdminUrl } from '@orrery/auth';
import type { ApiServices } from '../context.ts';
import { fetchJson } from './fetch-json.ts';

/** Signed admin URLs live this long: enough for one call, useless if logged. */
const SIGNATURE_TTL_S = 60;

export interface KeyspaceUsage {
  namespace: string;
  keyspace: string;
  keys: number;
  bytes: number;
  maxKeys: number;
  maxValueBytes: number;
  defaultTTL?: string | number | null;
}

export interface NamespaceUsage {
  namespace: string;
  keys: number;
  bytes: number;
  byteBudget: number;
  keyspaces: Array<{ keyspace: string; keys: number; bytes: number; declared: boolean; maxKeys: number; maxValueBytes: number; defaultTTL?: string | number | null }>;
}

/** GET one statesvc admin route, signed with the master key (pass-through statesvc: unsigned). */
export async function statesvcAdminGet<T>(services: ApiServices, pathAndQuery: string): Promise<T> {
  if (!services.statesvc) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: 'the API was started without a statesvc URL; state usage is unavailable' });
  const { url, masterKey } = services.statesvc;
  const target = masterKey ? signAdminUrl(masterKey, 'GET', pathAndQuery, Date.now() / 1000 + SIGNATURE_TTL_S) : pathAndQuery;
  const answer = await fetchJson('statesvc', new URL(target, url).toString(), services.upstreamTimeoutMs ?? 3000);
  if (answer.status !== 200) {
    const msg = (answer.body as { error?: string } | undefined)?.error ?? `status ${answer.status}`;
    // Never echo the signed URL: it is a credential until it expires.
    throw new TRPCError({ code: answer.status === 404 ? 'NOT_FOUND' : 'BAD_GATEWAY', message: `statesvc admin read failed: ${msg}` });
  }
  return answer.body as T;
}

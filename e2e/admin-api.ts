/**
 * The admin API as the specs check it: tRPC straight to the operator with the admin token, not
 * through the console, so a spec sees what the platform holds rather than what the page shows.
 */
import type { E2EPlatform } from './platform.global-setup.ts';

/** A query procedure's result (`functions.get`, `audit.list`, …); throws with the API's answer on any error. */
export async function adminQuery<T>(p: Pick<E2EPlatform, 'operatorUrl' | 'adminToken'>, procedure: string, input?: unknown): Promise<T> {
  const q = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const res = await fetch(`${p.operatorUrl}/trpc/${procedure}${q}`, { headers: { authorization: `Bearer ${p.adminToken}` }, signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!res.ok || !body.result) throw new Error(`${procedure} answered ${res.status}: ${JSON.stringify(body.error ?? body)}`);
  return body.result.data;
}

/** A mutation procedure (`functions.applyManifest`, `functions.delete`, …); throws with the API's answer on any error. */
export async function adminMutation<T>(p: Pick<E2EPlatform, 'operatorUrl' | 'adminToken'>, procedure: string, input: unknown): Promise<T> {
  const res = await fetch(`${p.operatorUrl}/trpc/${procedure}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!res.ok || !body.result) throw new Error(`${procedure} answered ${res.status}: ${JSON.stringify(body.error ?? body)}`);
  return body.result.data;
}

import { request } from 'undici';

/**
 * One JSON POST from the activator to the operator (pokes, stats, pool specialization), answered
 * as `{status, body}` (body `{}` when it is not JSON). undici's request rather than fetch or
 * @orrery/control-http's node:http client: a kept-alive connection to the operator, and no
 * first-use load of Node's separate fetch stack on a cold request's path.
 */
export async function operatorPost(url: string, body: unknown, o: { token?: string; timeoutMs: number }): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const res = await request(url, { method: 'POST', headers, body: JSON.stringify(body), headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
  return { status: res.statusCode, body: await res.body.json().catch((): unknown => ({})) };
}

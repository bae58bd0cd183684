import { postJson } from '@orrery/control-http';

/**
 * One JSON POST from the activator to the operator (pokes, stats, pool specialization), answered
 * as `{status, body}` (body `{}` when it is not a JSON object). node:http through
 * @orrery/control-http: kept alive by Node's global agent, no first-use load of Node's separate
 * fetch stack on a cold request's path, and no second HTTP client in the router (undici cost
 * ~4 MiB of heap in every router; docs/performance.md).
 */
export async function operatorPost(url: string, body: unknown, o: { token?: string; timeoutMs: number }): Promise<{ status: number; body: unknown }> {
  return postJson(url, body, { timeoutMs: o.timeoutMs, ...(o.token ? { headers: { authorization: `Bearer ${o.token}` } } : {}) });
}

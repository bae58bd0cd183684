import { checkAnswer, type WireSchema } from '@orrery/spec';

/** Calls the registry admin API (`/admin/v1/*`) and unwraps the `{code, message, data}` envelope. */
export class AdminCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One admin call. `data` is checked against the route's schema from @orrery/spec: an answer
 * that does not match is a bad_response (usually a registry of another version), not trusted.
 */
export async function adminCall<T>(baseUrl: string, token: string, method: 'GET' | 'POST', path: string, schema: WireSchema<T>, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(new URL(path, baseUrl), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    throw new AdminCallError('unreachable', `cannot reach the registry admin API at ${baseUrl}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let env: { code?: string; message?: string; data?: unknown };
  try {
    env = JSON.parse(text) as typeof env;
  } catch {
    throw new AdminCallError('bad_response', `HTTP ${res.status} from ${baseUrl}${path}: ${text.slice(0, 200)}`);
  }
  if (env.code !== 'ok') throw new AdminCallError(env.code ?? 'error', env.message || `HTTP ${res.status}`);
  const data = checkAnswer(schema, env.data);
  if (!data.ok) throw new AdminCallError('bad_response', `the registry's ${path} answer does not match this CLI's contract (is the registry a different version?): ${data.problem}`);
  return data.value;
}

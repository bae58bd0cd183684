import { TRPCError } from '@trpc/server';

export interface UpstreamAnswer {
  status: number;
  body: unknown;
}

/** GET an upstream JSON endpoint with a timeout; network failures become SERVICE_UNAVAILABLE naming the service. */
export async function fetchJson(service: string, url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<UpstreamAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `${service} did not answer (${(err as Error).name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : (err as Error).message})` });
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: res.status, body };
}

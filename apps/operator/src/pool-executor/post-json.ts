import { request } from 'node:http';

/**
 * One JSON POST over node:http (extra `headers`, e.g. a bearer token), answered as `{status, body}`
 * (body `{}` when not JSON). The
 * executor calls each worker once (a new address every time, so nothing to keep alive); using
 * node:http keeps the first cold start from paying for loading Node's separate fetch stack.
 */
export function postJson(url: string, body: unknown, timeoutMs: number, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          /* not JSON: the status says enough */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(payload);
  });
}

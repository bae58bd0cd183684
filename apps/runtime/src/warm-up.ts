import { request } from 'node:http';
import { ConcurrencyBreaker } from './breaker.ts';
import { loadFunction } from './load/load-function.ts';
import type { Logger } from '@orrery/log';
import type { WorkerServer } from './worker-server.ts';
import { NO_TRACE } from './tracing/invocation-trace.ts';

/** Reads the request body and answers with a streamed body: every path a first request takes. */
const WARM_UP_SOURCE = `export default async (request) => new Response(await request.text() + ' warm', { headers: { 'x-warm-up': '1' } });\n`;

/**
 * Pool mode: the first function a generic worker loads and the first request it serves pay for
 * one-time work — Node loads its fetch implementation (`Request`, `Response`, `Headers`) lazily,
 * the ESM loader (and tsx's hooks, when present) compile on first use, the first write of a module file
 * creates the work dir. That is ~30–150 ms on a loaded machine, all of it on the cold request's
 * path. A generic worker does it once before it says it is listening, so it is off that path: it
 * loads a throwaway module through the same loader and sends one request to itself through the
 * whole server (breaker, Web request, handler, streamed response), then forgets it.
 */
export async function warmUp(server: WorkerServer, o: { url: string; workDir: string; log: Logger }): Promise<number> {
  const started = performance.now();
  const loaded = await loadFunction({ source: { inline: WARM_UP_SOURCE } }, { workDir: o.workDir });
  const quiet = o.log.child({ source: 'warm-up' });
  server.activate({
    namespace: '',
    function: '',
    revision: '',
    handler: loaded.handler,
    ctx: { state: undefined, namespace: '', function: '', revision: '', log: quiet, trace: NO_TRACE },
    breaker: new ConcurrencyBreaker({ limit: 0 }),
    timeoutMs: 10_000,
  });
  try {
    await selfRequest(o.url);
  } finally {
    server.forgetWarmUp();
  }
  return Math.round(performance.now() - started);
}

function selfRequest(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/warm-up`, { method: 'POST', headers: { 'content-type': 'text/plain', connection: 'close' } }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`warm-up request answered ${res.statusCode}`))));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end('ping');
  });
}

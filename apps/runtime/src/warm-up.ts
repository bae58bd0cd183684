import { rm } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { activateFunction } from './activate-function.ts';
import { nonceMatchesVerifier } from '@orrery/auth';
import { readJsonBody } from '@orrery/control-http';
import { ConcurrencyBreaker } from './breaker.ts';
import { loadFunction } from './load/load-function.ts';
import { parseSpecializeRequest, type Parsed } from './specialize.ts';
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
export async function warmUp(server: WorkerServer, o: { url: string; adminUrl?: string; workDir: string; log: Logger; silentLog: Logger }): Promise<number> {
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
    const status = await selfRequest(`${o.url}/warm-up`, 'ping');
    if (status !== 200) throw new Error(`warm-up request answered ${status}`);
  } finally {
    server.forgetWarmUp();
  }
  // The runtime's own routes (route table, JSON answers): the specialize call is their first use
  // on the local platform, where nothing probes /readyz.
  await selfRequest(`${o.adminUrl ?? o.url}/readyz`);
  // The nonce gate's hash and comparison (the answer, false, is dropped: the gate is untouched).
  nonceMatchesVerifier('warm-up', '0'.repeat(64));
  await warmActivation(await warmSpecializeBody(), o.workDir, o.silentLog);
  return Math.round(performance.now() - started);
}

/**
 * The activation's own first-use costs (~1–2 ms measured on the cold path: the state token
 * file's write, the state client, the function's log lines and their redaction), paid on the
 * sample assignment in a scratch folder that is removed again. Nothing reaches the server or
 * this process's environment (`env` is a throwaway object), and the records go to `silentLog`
 * (a logger of the same format whose lines are dropped), so no "function loaded" line names a
 * function that never ran.
 */
export async function warmActivation(parsed: Parsed, workDir: string, silentLog: Logger): Promise<void> {
  if (!parsed.ok) throw new Error(`warm-up sample refused: ${parsed.error}`);
  const scratch = join(workDir, 'warm-up-activation');
  try {
    await activateFunction(parsed.assignment, { workDir: scratch, log: silentLog, env: {} });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A specialize body of the executor's shape (no real credential: the token is 64 zeros). */
const SAMPLE_SPECIALIZE_BODY = JSON.stringify({
  namespace: 'warm-up',
  function: 'warm-up',
  revision: 'warm-up-00001',
  source: { inline: WARM_UP_SOURCE },
  containerConcurrency: 0,
  timeoutSeconds: 300,
  stateCredentials: { namespace: 'warm-up', keyspace: 'warm-up', token: '0'.repeat(64) },
  stateUrl: 'http://127.0.0.1:1',
  env: { WARM_UP: '1' },
  registryCredential: { namespace: 'warm-up', service: 'orrery.functions.warm-up.warm-up.warm-up-00001', token: '0'.repeat(64) },
});

/**
 * The specialize call's own first-use costs (measured 2–3 ms on the cold path: the first async
 * iteration of a request stream, JSON parsing of the body, the request's validation). They are
 * paid here in process, on a stream built from a sample body, and nothing is activated: the
 * only way to /v1/specialize stays the single-use nonce gate (a self-call there would need a
 * second way past it).
 */
export async function warmSpecializeBody(): Promise<Parsed> {
  const body = Buffer.from(SAMPLE_SPECIALIZE_BODY);
  const stream = Object.assign(Readable.from([body], { objectMode: false }), { headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
  return parseSpecializeRequest(await readJsonBody(stream as unknown as IncomingMessage, { limit: body.length }));
}

/** One request to this worker on a connection of its own; answers the status once the body is read. */
function selfRequest(url: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? { connection: 'close' } : { 'content-type': 'text/plain', connection: 'close' };
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

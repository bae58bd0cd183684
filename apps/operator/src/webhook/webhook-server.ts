import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer as createHttpServer } from 'node:http';
import { type Server as HttpsServer, createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValidationLookup } from '@orrery/spec';
import { JsonBodyError, readJsonBody, routes, sendJson } from '@orrery/control-http';
import { BadReviewError, defaultAdmission, parseReview, review, validateAdmission } from './admission.ts';
import { SourceReadSkipped } from './bounded-source.ts';
import { type AdmissionSource, decideReadingThrough } from './read-through-lookup.ts';

/** AdmissionReviews for our kinds are small; the API server caps objects at ~3 MiB. */
export const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export interface WebhookServerOptions {
  host?: string;
  port?: number;
  /**
   * PEM files (a mounted Secret, e.g. cert-manager's), polled for changes; or a PEM pair in memory
   * that the caller replaces with `setCertificate` (the operator's own certificate keeper).
   * Absent = plain HTTP, for tests only.
   */
  tls?: { certFile: string; keyFile: string; reloadIntervalMs?: number } | { cert: string; key: string };
  lookup?: ValidationLookup;
  /**
   * The source of truth behind the lookup's caches: what a rule found missing in them is read
   * from it before a /validate answer (an Environment or a keyspace owner created a moment ago).
   * /mutate uses the caches alone: a default patched onto an object the validation then refuses
   * costs nothing. Absent = the caches' answers stand.
   */
  source?: AdmissionSource;
  log?: (msg: string) => void;
}

export interface WebhookServer {
  url: string;
  server: Server | HttpsServer;
  /** Re-read the cert and key now (also done automatically when the files change). */
  reloadCertificate(): void;
  /** Serve this pair from now on (new connections); a broken pair is refused and the old one kept. */
  setCertificate(pair: { cert: string; key: string }): void;
  close(): Promise<void>;
}

/**
 * The webhook's 4xx for a body it cannot take or a review it cannot read, in its own codes and
 * wording. Anything else, a body cut off mid-read included, stays a failed request (500) as
 * before: that client is gone anyway.
 */
function refusalOf(err: unknown): { status: number; body: { error: string; code: string } } | undefined {
  if (err instanceof BadReviewError) return { status: 400, body: { error: err.message, code: err.code } };
  if (!(err instanceof JsonBodyError)) return undefined;
  if (err.problem === 'too_large') return { status: 413, body: { error: `AdmissionReview larger than ${MAX_REVIEW_BYTES} bytes`, code: 'body_too_large' } };
  if (err.problem === 'not_json') return { status: 400, body: { error: 'body is not valid JSON', code: 'bad_admission_review' } };
  return undefined;
}

/** A pair that does not load (mismatched key, bad PEM) is refused: the previous one keeps serving. */
function replaceOn(https: HttpsServer, log: (msg: string) => void) {
  return (pair: { cert: string; key: string }) => {
    try {
      https.setSecureContext(pair);
      log('webhook serving certificate replaced');
    } catch (err) {
      log(`webhook certificate replacement refused, keeping the previous one: ${(err as Error).message}`);
    }
  };
}

/**
 * The admission webhook: POST /validate (ValidatingWebhookConfiguration) and POST /mutate
 * (MutatingWebhookConfiguration, defaults as JSON Patch), GET /healthz. With TLS the cert and key
 * are re-read when their files change — a Secret volume updated by cert-manager rotates the
 * serving certificate without a restart (new connections get the new cert).
 */
export async function startWebhookServer(o: WebhookServerOptions = {}): Promise<WebhookServer> {
  const log = o.log ?? (() => {});
  /** Reads the AdmissionReview, answers it with `decide`'s response; a body or review it cannot take is its 4xx. */
  const admit = async (req: IncomingMessage, res: ServerResponse, decide: typeof validateAdmission, source: AdmissionSource | undefined) => {
    let request;
    try {
      request = parseReview(await readJsonBody(req, { limit: MAX_REVIEW_BYTES }));
    } catch (err) {
      const refusal = refusalOf(err);
      if (!refusal) throw err;
      return sendJson(res, refusal.status, refusal.body);
    }
    const response = await decideReadingThrough(decide, request, o.lookup, source, (what, err) => {
      // Skipped reads are counted by the bounded source and logged together.
      if (!(err instanceof SourceReadSkipped)) log(`could not read ${what} for admission, judged by the cache: ${(err as Error).message}`);
    });
    if (!response.allowed) log(`denied ${request.operation} ${request.kind.kind} ${request.namespace ?? ''}/${request.name ?? ''}`);
    sendJson(res, 200, review(response));
  };
  const healthy = (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 200, { ok: true });
  const notFound = (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 404, { error: 'not found: POST /validate or /mutate', code: 'not_found' });
  const table = routes(
    [
      { method: 'GET', path: '/healthz', handler: healthy },
      { method: 'GET', path: '/readyz', handler: healthy },
      { method: 'POST', path: '/validate', handler: (req, res) => admit(req, res, validateAdmission, o.source) },
      { method: 'POST', path: '/mutate', handler: (req, res) => admit(req, res, defaultAdmission, undefined) },
    ],
    {
      notFound,
      // Only the review paths answer 405; a probe path asked with another method is unknown (404), as it always was.
      methodNotAllowed: (req, res, allow) => (allow === 'POST' ? sendJson(res, 405, { error: 'use POST with an AdmissionReview', code: 'method_not_allowed' }) : notFound(req, res)),
    },
  );
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        await table(req, res);
      } catch (err) {
        if (!res.headersSent) sendJson(res, 500, { error: (err as Error).message, code: 'internal' });
      }
    })();
  };

  let server: Server | HttpsServer;
  let reloadCertificate = () => {};
  let stopWatching = () => {};
  let setCertificate: (pair: { cert: string; key: string }) => void = () => {
    throw new Error('the webhook serves plain HTTP: no certificate to set');
  };
  if (o.tls && 'cert' in o.tls) {
    const https = createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, handler);
    server = https;
    setCertificate = replaceOn(https, log);
  } else if (o.tls) {
    const { certFile, keyFile } = o.tls;
    const read = () => ({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
    const https = createHttpsServer(read(), handler);
    server = https;
    reloadCertificate = () => {
      try {
        https.setSecureContext(read());
        log('webhook serving certificate reloaded');
      } catch (err) {
        // Keep serving the old pair: a half-written rotation must not take admission down.
        log(`webhook certificate reload failed, keeping the previous one: ${(err as Error).message}`);
      }
    };
    setCertificate = replaceOn(https, log);
    const interval = o.tls.reloadIntervalMs ?? 10_000;
    const onChange = () => reloadCertificate();
    watchFile(certFile, { interval, persistent: false }, onChange);
    watchFile(keyFile, { interval, persistent: false }, onChange);
    stopWatching = () => {
      unwatchFile(certFile, onChange);
      unwatchFile(keyFile, onChange);
    };
  } else {
    server = createHttpServer(handler);
  }
  server.requestTimeout = 10_000;
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${o.tls ? 'https' : 'http'}://${host}:${port}`,
    server,
    reloadCertificate: () => reloadCertificate(),
    setCertificate: (pair) => setCertificate(pair),
    close: async () => {
      stopWatching();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

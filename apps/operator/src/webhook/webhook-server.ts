import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer as createHttpServer } from 'node:http';
import { type Server as HttpsServer, createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValidationLookup } from '@orrery/spec';
import { BadReviewError, defaultAdmission, parseReview, review, validateAdmission } from './admission.ts';

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

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_REVIEW_BYTES) return undefined;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
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
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && (path === '/healthz' || path === '/readyz')) return sendJson(res, 200, { ok: true });
      if (path !== '/validate' && path !== '/mutate') return sendJson(res, 404, { error: 'not found: POST /validate or /mutate', code: 'not_found' });
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'use POST with an AdmissionReview', code: 'method_not_allowed' });
      const text = await readBody(req);
      if (text === undefined) return sendJson(res, 413, { error: `AdmissionReview larger than ${MAX_REVIEW_BYTES} bytes`, code: 'body_too_large' });
      let request;
      try {
        request = parseReview(JSON.parse(text) as unknown);
      } catch (err) {
        const message = err instanceof BadReviewError ? err.message : 'body is not valid JSON';
        return sendJson(res, 400, { error: message, code: 'bad_admission_review' });
      }
      const response = path === '/validate' ? validateAdmission(request, o.lookup) : defaultAdmission(request, o.lookup);
      if (!response.allowed) log(`denied ${request.operation} ${request.kind.kind} ${request.namespace ?? ''}/${request.name ?? ''}`);
      sendJson(res, 200, review(response));
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: (err as Error).message, code: 'internal' });
    });
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

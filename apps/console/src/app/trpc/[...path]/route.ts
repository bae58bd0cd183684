import { parseTrustedProxies, type TrustedProxies } from '@orrery/api/http-guards';
import { PEER_HEADER, PEER_NONCE_ENV, peerFacts } from '../../../lib/peer-facts.ts';
import { judgeConsoleRequest, withSecure } from './console-request.ts';

/**
 * Same-origin door to the admin API in the operator: the browser's session cookie
 * (httpOnly, SameSite=Strict) stays first-party, and the console holds no database or secret.
 * Only the headers the API reads are forwarded; the client's address and scheme are the
 * console's own findings (console-request.ts), never what the client claimed.
 */
const FORWARD_REQUEST = ['content-type', 'cookie', 'authorization', 'accept', 'trpc-accept', 'x-trpc-source'];
const FORWARD_RESPONSE = ['retry-after'];
const MAX_BODY_BYTES = 1024 * 1024;

function apiBase(): string | undefined {
  return process.env.ORRERY_API_URL?.replace(/\/+$/, '');
}

let config: { trusted: TrustedProxies; publicOrigins: string[] } | undefined;
function consoleConfig() {
  // Checked at start by bin/orrery-console.mjs; read once here.
  config ??= {
    trusted: parseTrustedProxies(process.env.ORRERY_TRUSTED_PROXIES),
    publicOrigins: (process.env.ORRERY_PUBLIC_ORIGIN ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
  return config;
}

const json = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

async function proxy(req: Request, ctx: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const base = apiBase();
  if (!base) {
    return Response.json({ error: { code: 'API_NOT_CONFIGURED', message: 'set ORRERY_API_URL to the operator URL (orrery up does this)' } }, { status: 503 });
  }
  const verdict = judgeConsoleRequest({ method: req.method, headers: req.headers, peer: peerFacts(req.headers.get(PEER_HEADER), process.env[PEER_NONCE_ENV]) }, consoleConfig());
  if (verdict.refuse) return json(verdict.refuse.status, verdict.refuse.body);
  const { path } = await ctx.params;
  const url = new URL(req.url);
  const headers = new Headers(verdict.forward);
  for (const h of FORWARD_REQUEST) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  let body: ArrayBuffer | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const declared = Number(req.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) return Response.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body over 1 MiB' } }, { status: 413 });
    body = await req.arrayBuffer();
    if (body.byteLength > MAX_BODY_BYTES) return Response.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body over 1 MiB' } }, { status: 413 });
  }
  let upstream: Response;
  try {
    upstream = await fetch(`${base}/trpc/${path.map(encodeURIComponent).join('/')}${url.search}`, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    return Response.json({ error: { code: 'API_UNREACHABLE', message: `the admin API at ${base} did not answer: ${(err as Error).message}` } }, { status: 502 });
  }
  const out = new Headers({ 'content-type': upstream.headers.get('content-type') ?? 'application/json', 'cache-control': 'no-store' });
  for (const h of FORWARD_RESPONSE) {
    const v = upstream.headers.get(h);
    if (v !== null) out.set(h, v);
  }
  for (const c of upstream.headers.getSetCookie()) out.append('set-cookie', withSecure(c, verdict.secure));
  return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: out });
}

export const GET = proxy;
export const POST = proxy;
export const dynamic = 'force-dynamic';

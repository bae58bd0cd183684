/**
 * Same-origin door to the admin API in the operator: the browser's session cookie
 * (httpOnly, SameSite=Strict) stays first-party, and the console holds no database or secret.
 * Only the headers the API reads are forwarded.
 */
const FORWARD_REQUEST = ['content-type', 'cookie', 'authorization', 'accept', 'trpc-accept', 'x-trpc-source'];
const MAX_BODY_BYTES = 1024 * 1024;

function apiBase(): string | undefined {
  return process.env.ORRERY_API_URL?.replace(/\/+$/, '');
}

async function proxy(req: Request, ctx: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const base = apiBase();
  if (!base) {
    return Response.json({ error: { code: 'API_NOT_CONFIGURED', message: 'set ORRERY_API_URL to the operator URL (orrery up does this)' } }, { status: 503 });
  }
  const { path } = await ctx.params;
  const url = new URL(req.url);
  const headers = new Headers();
  for (const h of FORWARD_REQUEST) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  if (url.protocol === 'https:') headers.set('x-forwarded-proto', 'https');
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
  for (const c of upstream.headers.getSetCookie()) out.append('set-cookie', c);
  return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: out });
}

export const GET = proxy;
export const POST = proxy;
export const dynamic = 'force-dynamic';

/** The request `orrery invoke` sends, built from its flags (pure, so it is unit tested). */
export interface InvocationFlags {
  routerUrl: string;
  function: string;
  namespace: string;
  path?: string;
  data?: string;
  headers: string[];
  tag?: string;
  method?: string;
}

export type Invocation = { ok: true; url: string; init: { method: string; headers: Record<string, string>; body?: string } } | { ok: false; error: string };

const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function buildInvocation(f: InvocationFlags): Invocation {
  if (!NAME.test(f.function)) return { ok: false, error: `function name ${JSON.stringify(f.function)} is not a DNS-1123 label` };
  if (!NAME.test(f.namespace)) return { ok: false, error: `namespace ${JSON.stringify(f.namespace)} is not a DNS-1123 label` };
  const path = f.path ?? '/';
  if (!path.startsWith('/')) return { ok: false, error: `--path must start with "/", got ${JSON.stringify(path)}` };
  const headers: Record<string, string> = {};
  for (const h of f.headers) {
    const i = h.indexOf(':');
    if (i <= 0) return { ok: false, error: `--header takes K:V, got ${JSON.stringify(h)}` };
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  if (f.tag) headers['orrery-tag'] = f.tag;
  const method = (f.method ?? (f.data !== undefined ? 'POST' : 'GET')).toUpperCase();
  if ((method === 'GET' || method === 'HEAD') && f.data !== undefined) return { ok: false, error: `${method} cannot carry --data; use -X POST (the default with --data)` };
  if (f.data !== undefined && !headers['content-type']) headers['content-type'] = looksLikeJson(f.data) ? 'application/json' : 'text/plain; charset=utf-8';
  return {
    ok: true,
    url: `${f.routerUrl.replace(/\/+$/, '')}/${f.namespace}/${f.function}${path}`,
    init: { method, headers, ...(f.data !== undefined ? { body: f.data } : {}) },
  };
}

function looksLikeJson(s: string): boolean {
  try {
    JSON.parse(s);
    return /^\s*[[{"]/.test(s);
  } catch {
    return false;
  }
}

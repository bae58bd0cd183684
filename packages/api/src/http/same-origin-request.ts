/**
 * Cross-site request forgery guard for state-changing requests: a browser always names the page
 * that sent a POST in `Origin` (and `Sec-Fetch-Site`), so a POST whose origin is not the one it
 * was sent to is refused. Requests without either header come from non-browser clients (CLI,
 * curl), which carry no ambient cookie of a victim, and pass.
 */
export interface OriginCheckInput {
  method: string;
  origin?: string | null;
  secFetchSite?: string | null;
  /** The host the request was sent to (Host, or X-Forwarded-Host from a trusted proxy). */
  host?: string | null;
  /** Extra origins that count as this one (a configured public URL), e.g. `https://console.example`. */
  allowedOrigins?: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hostOf(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why the request is refused as cross-origin, or undefined when it may proceed. */
export function crossOriginRefusal(req: OriginCheckInput): string | undefined {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return undefined;
  const site = req.secFetchSite?.trim().toLowerCase();
  if (req.origin == null || req.origin === '') {
    if (site && site !== 'same-origin' && site !== 'none') return `a ${site} request may not change anything here`;
    return undefined;
  }
  const origin = req.origin.trim();
  const allowed = new Set((req.allowedOrigins ?? []).map(originOf).filter((o): o is string => !!o));
  if (allowed.has(originOf(origin) ?? '')) return undefined;
  const host = req.host?.trim().toLowerCase();
  const from = hostOf(origin);
  if (!from || !host || from !== host) return `origin ${origin.slice(0, 200)} may not change anything here`;
  return undefined;
}

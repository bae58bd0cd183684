import { crossOriginRefusal, forwardedFacts, isJsonRequest, refusalBody, type TrustedProxies } from '@orrery/api/http-guards';
import type { PeerFacts } from '../../../lib/peer-facts.ts';

export interface ConsoleRequest {
  method: string;
  headers: { get(name: string): string | null };
  /** From the console server (peer-facts.ts); undefined when unknown. */
  peer: PeerFacts | undefined;
}

export interface ConsoleRequestConfig {
  trusted: TrustedProxies;
  /** `--public-origin`: the console's URL as users type it, when a proxy changes the Host. */
  publicOrigins: readonly string[];
}

export type ConsoleVerdict =
  | { refuse: { status: number; body: string } }
  | {
      refuse?: undefined;
      /** The client reached the console over https: cookies get Secure. */
      secure: boolean;
      /** Headers for the admin API: who the client is, as the console saw it (never the client's own claim). */
      forward: Record<string, string>;
    };

/**
 * What the console's /trpc route does before forwarding a call to the admin API: refuse a
 * state-changing request from another origin (403) or with a body that is not JSON (415), and
 * say who the client is — its address and scheme as the console saw them, believing
 * X-Forwarded-* only from a trusted proxy. Pure.
 */
export function judgeConsoleRequest(req: ConsoleRequest, config: ConsoleRequestConfig): ConsoleVerdict {
  const h = req.headers;
  const facts = forwardedFacts(
    {
      peer: req.peer?.address,
      encrypted: req.peer?.tls ?? false,
      xForwardedFor: h.get('x-forwarded-for'),
      xForwardedProto: h.get('x-forwarded-proto'),
      xForwardedHost: h.get('x-forwarded-host'),
      host: h.get('host'),
    },
    config.trusted,
  );
  const crossOrigin = crossOriginRefusal({ method: req.method, origin: h.get('origin'), secFetchSite: h.get('sec-fetch-site'), host: facts.host, allowedOrigins: config.publicOrigins });
  if (crossOrigin) return { refuse: { status: 403, body: refusalBody('FORBIDDEN', 403, 'cross_origin', `${crossOrigin}: the console takes changes only from its own pages`) } };
  if (!isJsonRequest(req.method, h.get('content-type'))) {
    return { refuse: { status: 415, body: refusalBody('UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'procedures take application/json bodies only') } };
  }
  const forward: Record<string, string> = { 'x-forwarded-proto': facts.secure ? 'https' : 'http' };
  if (facts.clientAddress) forward['x-forwarded-for'] = facts.clientAddress;
  return { secure: facts.secure, forward };
}

/** A Set-Cookie from the admin API with `Secure` added when the browser reached the console over https. */
export function withSecure(setCookie: string, secure: boolean): string {
  if (!secure || /;\s*secure\s*(;|$)/i.test(setCookie)) return setCookie;
  return `${setCookie}; Secure`;
}

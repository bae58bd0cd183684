import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The TCP facts of a request (peer address, TLS), which a Next.js route cannot see: the console's
 * server (bin/orrery-console.mjs) writes them into this header on every request, overwriting
 * whatever a client sent, with a random per-process nonce a client cannot know. A value without
 * the right nonce (another server in front, `next start` directly) is ignored: no peer known, so
 * no proxy trusted.
 */
export const PEER_HEADER = 'x-orrery-peer';
export const PEER_NONCE_ENV = 'ORRERY_CONSOLE_PEER_NONCE';

export interface PeerFacts {
  address: string;
  tls: boolean;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** `<nonce> <address> <0|1>` → the facts, when the nonce is this process's. */
export function peerFacts(value: string | null | undefined, nonce: string | undefined): PeerFacts | undefined {
  if (!value || !nonce) return undefined;
  const [given = '', address = '', tls = '', ...rest] = value.split(' ');
  if (rest.length || !address || (tls !== '0' && tls !== '1')) return undefined;
  if (!timingSafeEqual(digest(given), digest(nonce))) return undefined;
  return { address, tls: tls === '1' };
}

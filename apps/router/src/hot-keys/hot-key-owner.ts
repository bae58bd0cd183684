/**
 * The owner of a sticky key right now and its load: the revision the key's hash picks, the HRW
 * winner among that revision's ready endpoints (what Admit prefers), its in-flight requests on this
 * router and the admission limit. Read for the few hot keys at `/v1/hot-keys`, never per request.
 */
import type { StickyOwnerLoad } from '@orrery/spec';
import type { Endpoint } from '../admit/endpoint.ts';
import { fnv64Init, fnv64Update } from '../admit/fnv1a64.ts';
import { hrwKeyStateOfKeyHash, hrwOwnerIndex } from '../admit/hrw.ts';
import type { FunctionRoute, RevisionRoute } from '../routing/route-table.ts';
import { pickSticky } from '../routing/traffic-pick.ts';

export function stickyOwnerLoad(
  fn: FunctionRoute | undefined,
  keyHashHi: number,
  keyHashLo: number,
  ready: (revKey: string) => readonly Endpoint[],
  limitOf: (rev: RevisionRoute) => number,
): StickyOwnerLoad | null {
  if (!fn?.sticky) return null;
  const rev = pickSticky(fn, keyHashHi, keyHashLo);
  if (!rev) return null;
  const endpoints = ready(rev.key);
  if (endpoints.length === 0) return null;
  const i = hrwOwnerIndex(
    hrwKeyStateOfKeyHash(keyHashHi, keyHashLo),
    endpoints.map((e) => e.address),
    endpoints.map((e) => e.addressBytes),
  );
  const owner = endpoints[i]!;
  return { address: owner.address, revision: rev.revision, inflight: owner.inflight, concurrency: limitOf(rev) };
}

const encoder = new TextEncoder();

/** FNV-1a-64 of a key (a hot key read back for its owner; the request path hashes once itself). */
export function keyHashOf(key: string): { hi: number; lo: number } {
  const h = fnv64Update(fnv64Init(), encoder.encode(key));
  return { hi: h[0]!, lo: h[1]! };
}

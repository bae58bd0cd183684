/**
 * The router's hot keys: one decayed top-k per sticky function (HotKeyTrackers from @orrery/spec),
 * fed once per request that carries a sticky key, with whether the request got the key's HRW
 * owner. Read at `GET /v1/hot-keys` on the admin port, where each hot key also gets its owner
 * worker's load now (hot-key-owner.ts). Memory is fixed: at most maxTrackers functions ×
 * capacity keys, each key at most MAX_TRACKED_KEY_CHARS characters.
 */
import { HOT_KEYS_DEFAULT_LIMIT, HotKeyTrackers, type FunctionHotKeys, type HotKeyTrackersOptions, type StickyOwnerLoad } from '@orrery/spec';
import { keyHashHex } from '../tables/key-hash-id.ts';

/**
 * Keys longer than this are held cut, with the key's FNV-1a-64 appended (so two long keys sharing
 * a prefix stay apart and the owner can still be found): a header key may be up to 16 KiB.
 */
export const MAX_TRACKED_KEY_CHARS = 256;
const CUT_KEY_PREFIX_CHARS = 200;
const CUT_MARK = '…#';

/** What one function's key needs to find its owner: the key's FNV-1a-64 halves. */
export type OwnerLookup = (namespace: string, fn: string, keyHashHi: number, keyHashLo: number) => StickyOwnerLoad | null;

/**
 * A copy of `s` that shares no storage with the string it was cut from. A sticky key from a
 * cookie or the query string is cut out of the whole Cookie header or request target (up to 16
 * KiB), and V8 keeps a cut of 13 or more characters as a view of its parent: held in a tracker, a
 * 20-character key would keep all of that alive. Joined to a character and cut again, it is
 * copied first.
 */
function ownCopy(s: string): string {
  return ` ${s}`.slice(1);
}

/** The tracked form of a sticky key: itself (copied), or cut with the hash of the whole key. */
export function trackedKey(key: string, keyHashHi: number, keyHashLo: number): string {
  return ownCopy(key.length <= MAX_TRACKED_KEY_CHARS ? key : `${key.slice(0, CUT_KEY_PREFIX_CHARS)}${CUT_MARK}${keyHashHex(keyHashHi, keyHashLo)}`);
}

/** The FNV-1a-64 halves of a cut key, read back from its suffix (undefined for a key held whole). */
export function cutKeyHash(tracked: string): { hi: number; lo: number } | undefined {
  if (tracked.length !== CUT_KEY_PREFIX_CHARS + CUT_MARK.length + 16 || tracked.slice(CUT_KEY_PREFIX_CHARS, CUT_KEY_PREFIX_CHARS + CUT_MARK.length) !== CUT_MARK) return undefined;
  const hex = tracked.slice(-16);
  if (!/^[0-9a-f]{16}$/.test(hex)) return undefined;
  return { hi: parseInt(hex.slice(0, 8), 16), lo: parseInt(hex.slice(8), 16) };
}

export class StickyHotKeys {
  readonly trackers: HotKeyTrackers;

  constructor(
    opts: HotKeyTrackersOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.trackers = new HotKeyTrackers(opts);
  }

  /** One request of function namespace/fn with sticky `key` (FNV-1a-64 hi, lo); `ownerMissed`: it did not get the key's owner. */
  observe(namespace: string, fn: string, key: string, keyHashHi: number, keyHashLo: number, ownerMissed: boolean): void {
    this.trackers.observe(namespace, fn, trackedKey(key, keyHashHi, keyHashLo), this.now(), ownerMissed);
  }

  /**
   * Hot keys per function, each with its owner's load from `owner` (given the key's hash; keys held
   * whole are hashed here with `hash`, which the caller supplies so this file needs no FNV code).
   */
  view(owner: OwnerLookup, hash: (key: string) => { hi: number; lo: number }, opts: { namespace?: string; function?: string; limit?: number } = {}): FunctionHotKeys[] {
    const views = this.trackers.view(this.now(), opts.limit ?? HOT_KEYS_DEFAULT_LIMIT, { namespace: opts.namespace, name: opts.function });
    return views.map((v) => ({
      namespace: v.namespace,
      function: v.name,
      rate: v.rate,
      boundRate: v.boundRate,
      keys: v.keys.map((k) => {
        const h = cutKeyHash(k.key) ?? hash(k.key);
        return { key: k.key, rate: k.rate, share: k.share, rateError: k.rateError, ownerBusyShare: k.flaggedShare, owner: owner(v.namespace, v.name, h.hi, h.lo) };
      }),
    }));
  }
}

/**
 * The hot-key settings statesvc, the router, the admin API and the console share (docs/state.md,
 * "Hot keys"). One place, so the bound the docs state is the one the servers run with.
 */

/**
 * Counters per keyspace (statesvc) or per sticky function (router). With k counters a count is at
 * most D/k too high (D = the decayed request count of the keyspace): a share at most 1/128 ≈ 0.8
 * percentage points. 128 finds the exact top 10 of Zipf 1.0–1.2 traffic over 100 000 keys
 * (decayed-top-k.zipf.test.ts); 64 does not at exponent 1.0.
 */
export const HOT_KEYS_DEFAULT_CAPACITY = 128;

/** Half-life of a count: "hot now" is roughly the last 30 s (three half-lives hold 7/8 of the weight). */
export const HOT_KEYS_DEFAULT_HALF_LIFE_MS = 10_000;

/** Keyspaces (statesvc) or functions (router) tracked at once; beyond it the coldest tracker is dropped. */
export const HOT_KEYS_DEFAULT_MAX_TRACKERS = 256;

/** Keys answered per keyspace or function when the caller does not ask for fewer. */
export const HOT_KEYS_DEFAULT_LIMIT = 10;
/** At most this many keys per keyspace or function in one answer. */
export const HOT_KEYS_MAX_LIMIT = 50;

/** The overview alerts when one key takes more than this share of its keyspace's traffic… */
export const HOT_KEY_ALERT_DEFAULT_SHARE = 0.2;
/** …while the keyspace carries at least this many requests per second (one key of three requests is not a hot key). */
export const HOT_KEY_ALERT_MIN_RATE = 1;

/**
 * A sticky key "keeps its owner saturated" when at least this share of its requests (decayed, since
 * it was last counted) found its owner worker at its concurrency limit…
 */
export const HOT_KEY_OWNER_BUSY_ALERT_SHARE = 0.5;
/** …and it carries at least this many requests per second (a handful of unlucky requests is not a pattern). */
export const HOT_KEY_OWNER_BUSY_ALERT_MIN_RATE = 1;

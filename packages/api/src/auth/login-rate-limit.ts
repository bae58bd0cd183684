import { normalizeAddress, parseAddress } from '../http/trusted-proxies.ts';

export interface LoginRateLimitOptions {
  /** Failed logins per user name within the window before further tries are refused. */
  perUser: number;
  /** Failed logins per client address (IPv6: per /64) within the window. */
  perAddress: number;
  windowMs: number;
  /** Distinct users and addresses remembered at most (oldest forgotten first). */
  maxKeys: number;
}

export const LOGIN_RATE_LIMIT_DEFAULTS: LoginRateLimitOptions = { perUser: 10, perAddress: 30, windowMs: 15 * 60_000, maxKeys: 10_000 };

/** Who a login attempt names: a user (password login) or nobody (admin token), and from where. */
export interface LoginAttempt {
  user?: string;
  address?: string;
}

/** IPv6 clients usually hold a whole /64: counting per address there would count nothing. */
export function addressBucket(address: string): string {
  const a = normalizeAddress(address);
  const parsed = parseAddress(a);
  if (!parsed?.v6) return a;
  return `${((parsed.value >> 64n) << 64n).toString(16)}/64`;
}

/**
 * Sliding-window count of failed logins per user and per address, in memory (per API process).
 * A refused try is not counted, so Retry-After is when the oldest failure leaves the window.
 * The admin token has no per-user bucket (a long random token cannot be guessed, and a bucket
 * for it would let anyone lock the admin out); it is limited per address like everything else.
 */
export class LoginRateLimiter {
  private readonly o: LoginRateLimitOptions;
  private readonly failures = new Map<string, number[]>();

  constructor(
    options: Partial<LoginRateLimitOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.o = { ...LOGIN_RATE_LIMIT_DEFAULTS, ...options };
  }

  private keys(a: LoginAttempt): Array<[string, number]> {
    const keys: Array<[string, number]> = [];
    if (a.user !== undefined) keys.push([`user:${a.user}`, this.o.perUser]);
    if (a.address) keys.push([`addr:${addressBucket(a.address)}`, this.o.perAddress]);
    return keys;
  }

  private recent(key: string, now: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    const from = now - this.o.windowMs;
    const kept = list.filter((t) => t > from);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  /** Seconds until this attempt may be tried (0 = now). */
  retryAfterSeconds(a: LoginAttempt): number {
    const now = this.now();
    let waitMs = 0;
    for (const [key, limit] of this.keys(a)) {
      const list = this.recent(key, now);
      if (list.length >= limit) waitMs = Math.max(waitMs, list[list.length - limit]! + this.o.windowMs - now);
    }
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  recordFailure(a: LoginAttempt): void {
    const now = this.now();
    for (const [key] of this.keys(a)) {
      const list = this.recent(key, now);
      if (!this.failures.has(key) && this.failures.size >= this.o.maxKeys) this.evict(now);
      list.push(now);
      this.failures.delete(key); // re-insert: Map order = least recently failed first
      this.failures.set(key, list);
    }
  }

  /** A successful login clears its user's failures (never its address's). */
  recordSuccess(a: LoginAttempt): void {
    if (a.user !== undefined) this.failures.delete(`user:${a.user}`);
  }

  /** Remembered keys (for tests and metrics). */
  get size(): number {
    return this.failures.size;
  }

  private evict(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now);
    while (this.failures.size >= this.o.maxKeys) this.failures.delete(this.failures.keys().next().value!);
  }
}

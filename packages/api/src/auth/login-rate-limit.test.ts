import { describe, expect, it } from 'vitest';
import { addressBucket, LOGIN_RATE_LIMIT_DEFAULTS, LoginRateLimiter } from './login-rate-limit.ts';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('LoginRateLimiter', () => {
  it('defaults: 10 failures per user, 30 per address, in 15 minutes', () => {
    expect(LOGIN_RATE_LIMIT_DEFAULTS).toMatchObject({ perUser: 10, perAddress: 30, windowMs: 15 * 60_000 });
  });

  it('the 11th try for a user within the window waits until the oldest failure leaves it', () => {
    const c = clock();
    const l = new LoginRateLimiter({ perUser: 10, perAddress: 1000, windowMs: 60_000 }, c.now);
    for (let i = 0; i < 10; i++) {
      expect(l.retryAfterSeconds({ user: 'vera', address: '10.0.0.1' })).toBe(0);
      l.recordFailure({ user: 'vera', address: '10.0.0.1' });
      c.advance(1000);
    }
    // first failure at t0, now t0+10s: it leaves the window at t0+60s
    expect(l.retryAfterSeconds({ user: 'vera', address: '10.0.0.9' })).toBe(50);
    expect(l.retryAfterSeconds({ user: 'otto', address: '10.0.0.1' })).toBe(0); // other users are not affected
    c.advance(49_000);
    expect(l.retryAfterSeconds({ user: 'vera' })).toBe(1);
    c.advance(1000);
    expect(l.retryAfterSeconds({ user: 'vera' })).toBe(0); // one failure left the window: one more try
    l.recordFailure({ user: 'vera' });
    expect(l.retryAfterSeconds({ user: 'vera' })).toBe(1);
  });

  it('limits per address across user names', () => {
    const c = clock();
    const l = new LoginRateLimiter({ perUser: 100, perAddress: 3, windowMs: 10_000 }, c.now);
    for (const user of ['a', 'b', 'c']) l.recordFailure({ user, address: '192.0.2.7' });
    expect(l.retryAfterSeconds({ user: 'd', address: '192.0.2.7' })).toBe(10);
    expect(l.retryAfterSeconds({ user: 'd', address: '::ffff:192.0.2.7' })).toBe(10); // same address, mapped form
    expect(l.retryAfterSeconds({ user: 'd', address: '192.0.2.8' })).toBe(0);
  });

  it('an admin-token login (no user) counts only per address', () => {
    const c = clock();
    const l = new LoginRateLimiter({ perUser: 1, perAddress: 2, windowMs: 10_000 }, c.now);
    l.recordFailure({ address: '10.1.1.1' });
    expect(l.retryAfterSeconds({ address: '10.1.1.1' })).toBe(0);
    l.recordFailure({ address: '10.1.1.1' });
    expect(l.retryAfterSeconds({ address: '10.1.1.1' })).toBe(10);
    expect(l.retryAfterSeconds({ address: '10.1.1.2' })).toBe(0);
  });

  it('a success clears its user but not its address', () => {
    const c = clock();
    const l = new LoginRateLimiter({ perUser: 2, perAddress: 3, windowMs: 10_000 }, c.now);
    l.recordFailure({ user: 'vera', address: '10.0.0.1' });
    l.recordFailure({ user: 'vera', address: '10.0.0.1' });
    expect(l.retryAfterSeconds({ user: 'vera' })).toBeGreaterThan(0);
    l.recordSuccess({ user: 'vera', address: '10.0.0.1' });
    expect(l.retryAfterSeconds({ user: 'vera' })).toBe(0);
    l.recordFailure({ user: 'otto', address: '10.0.0.1' });
    expect(l.retryAfterSeconds({ address: '10.0.0.1' })).toBeGreaterThan(0);
  });

  it('IPv6 clients are counted per /64', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe(addressBucket('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressBucket('2001:db8:1:2::1')).not.toBe(addressBucket('2001:db8:1:3::1'));
    expect(addressBucket('::ffff:10.0.0.1')).toBe('10.0.0.1');
    const l = new LoginRateLimiter({ perUser: 100, perAddress: 2, windowMs: 10_000 }, clock().now);
    l.recordFailure({ address: '2001:db8::1' });
    l.recordFailure({ address: '2001:db8::2' });
    expect(l.retryAfterSeconds({ address: '2001:db8::ffff' })).toBeGreaterThan(0);
  });

  it('remembers at most maxKeys keys, forgetting expired ones first, then the oldest', () => {
    const c = clock();
    const l = new LoginRateLimiter({ perUser: 1, perAddress: 100, windowMs: 10_000, maxKeys: 3 }, c.now);
    l.recordFailure({ user: 'old' });
    c.advance(20_000); // 'old' expired
    for (const user of ['a', 'b', 'c']) l.recordFailure({ user });
    expect(l.size).toBe(3);
    expect(l.retryAfterSeconds({ user: 'a' })).toBeGreaterThan(0);
    l.recordFailure({ user: 'd' }); // full: 'a' (least recently failed) goes
    expect(l.size).toBe(3);
    expect(l.retryAfterSeconds({ user: 'a' })).toBe(0);
    expect(l.retryAfterSeconds({ user: 'd' })).toBeGreaterThan(0);
  });
});

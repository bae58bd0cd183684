import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeFailures, steadyTraffic } from './steady-traffic.ts';

let server: Server;
let base = '';
/** A port nothing listens on (a server's, closed again). */
let closedPort = 0;
beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  // /slow answers after 300 ms, /fail with 503, everything else 200 at once.
  server = createServer((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('slow'), 300);
    else if (req.url === '/fail') res.writeHead(503).end('unavailable');
    else res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (path: string) => ({
  name: path,
  send: async () => {
    const res = await fetch(`${base}${path}`);
    const text = await res.text();
    return { ok: res.status === 200, detail: `${res.status} ${text}`, value: text };
  },
});

describe('steadyTraffic', () => {
  it('sends at the rate asked, however long answers take (open loop)', async () => {
    // A fake clock: the count is exact, whatever the load on the machine running the test.
    vi.useFakeTimers();
    try {
      const slow = { name: 'slow', send: () => new Promise<{ ok: boolean; detail: string }>((r) => setTimeout(() => r({ ok: true, detail: 'slow' }), 300)) };
      const t = steadyTraffic(40, () => slow);
      await vi.advanceTimersByTimeAsync(1000);
      // Slots at 0, 25, …, 1000 ms: 41 sent, though each answer takes 300 ms (a closed loop of
      // one would have sent 4).
      expect(t.sent()).toBe(41);
      expect(t.outcomes().length).toBe(41 - 12);
      const stopping = t.stop();
      await vi.advanceTimersByTimeAsync(300);
      const out = await stopping;
      // stop() waited for every request in flight, and sent nothing more.
      expect(out).toHaveLength(41);
      expect(out.every((o) => o.ok)).toBe(true);
      expect(out.map((o) => o.sentAt)).toEqual(Array.from({ length: 41 }, (_, i) => i * 25));
    } finally {
      vi.useRealTimers();
    }
  });

  it('catches up at once on the slots it missed while the event loop was busy', async () => {
    vi.useFakeTimers();
    try {
      const t = steadyTraffic(40, () => ({ name: 'x', send: async () => ({ ok: true, detail: '' }) }));
      expect(t.sent()).toBe(1);
      // The clock moves half a second with no timer run (a blocked event loop) …
      vi.setSystemTime(Date.now() + 500);
      expect(t.sent()).toBe(1);
      // … so when the next tick fires (slot 1, 25 ms on the timers' clock, 525 ms on the wall
      // clock) it sends every overdue request together (slots 1–21), then keeps the pace.
      await vi.advanceTimersByTimeAsync(25);
      expect(t.sent()).toBe(22);
      await vi.advanceTimersByTimeAsync(250);
      expect(t.sent()).toBe(32);
      await t.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps each failure with what it was: a wrong status, and a request that could not be sent', async () => {
    const t = steadyTraffic(50, (i) => (i % 3 === 0 ? get('/fail') : i % 3 === 1 ? get('/ok') : { name: 'refused', send: () => fetch(`http://127.0.0.1:${closedPort}/`).then(() => ({ ok: true, detail: '' })) }));
    await new Promise((r) => setTimeout(r, 200));
    const out = await t.stop();
    expect(out.length).toBeGreaterThanOrEqual(6);
    expect(out.filter((o) => o.name === '/ok').every((o) => o.ok)).toBe(true);
    expect(out.filter((o) => o.name === '/fail').map((o) => o.detail)).toContain('503 unavailable');
    const refused = out.filter((o) => o.name === 'refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((o) => !o.ok && /ECONNREFUSED/.test(o.detail))).toBe(true);
    // In sending order, each with its send time.
    expect(out.map((o) => o.sentAt)).toEqual([...out.map((o) => o.sentAt)].sort((a, b) => a - b));
    const text = describeFailures(out, 2);
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toMatch(/^\d+\.\d\ds \/fail: 503 unavailable$/m);
    expect(text).toMatch(/… and \d+ more$/);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => steadyTraffic(0, () => get('/'))).toThrow('perSecond must be positive');
  });
});

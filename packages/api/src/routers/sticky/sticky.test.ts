import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuesOf } from '../../errors.ts';
import { StickyRollupCollector } from '../../rollups/sticky-rollup-collector.ts';
import { counterDelta, minuteOf } from '../../rollups/counter-delta.ts';
import { createHarness, rejection, type Harness } from '../../testing/api-harness.ts';

type Fn = { namespace: string; function: string; requests: number; stickyRequests: number; stickyKeyMissing: number; stickyHits: number; teleports: number };

// Router replicas are stood in by small HTTP servers serving the documented /v1/stats shape: the
// real counters need workers and sticky traffic (the e2e suite covers that path end to end).
const replicas: Array<{ server: Server; url: string; fns: Fn[] }> = [];
let h: Harness;
let clock = new Date('2026-11-30T12:00:10Z');

async function fakeRouter(fns: Fn[]) {
  const r = { server: createServer(), url: '', fns };
  r.server.on('request', (req, res) => {
    res.writeHead(req.url === '/v1/stats' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ revisions: [], functions: r.fns }));
  });
  await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  replicas.push(r);
  return r;
}
const fn = (name: string, n: Partial<Fn> = {}): Fn => ({ namespace: 'default', function: name, requests: 0, stickyRequests: 0, stickyKeyMissing: 0, stickyHits: 0, teleports: 0, ...n });

beforeAll(async () => {
  await fakeRouter([fn('cart', { requests: 10, stickyRequests: 8, stickyHits: 6, teleports: 1, stickyKeyMissing: 2 })]);
  await fakeRouter([fn('cart', { requests: 5, stickyRequests: 4, stickyHits: 4 }), fn('other', { requests: 1 })]);
  h = await createHarness({ routerAdminUrls: () => [...replicas.map((r) => r.url), 'http://127.0.0.1:9'], now: () => clock, upstreamTimeoutMs: 2000 });
}, 60_000);
afterAll(async () => {
  await h.close();
  for (const r of replicas) await new Promise<void>((ok) => r.server.close(() => ok()));
});

describe('counters (pure)', () => {
  it('counterDelta treats a drop as a restart', () => {
    expect(counterDelta(undefined, 5)).toBe(0);
    expect(counterDelta(5, 9)).toBe(4);
    expect(counterDelta(9, 3)).toBe(3);
    expect(minuteOf(new Date('2026-01-01T00:01:59.999Z')).toISOString()).toBe('2026-01-01T00:01:00.000Z');
  });
});

describe('sticky.live (viewer; router replicas stood in by local HTTP servers)', () => {
  it('sums every replica and reports the one that does not answer', async () => {
    const r = await h.as('viewer').sticky.live({ function: 'cart' });
    expect(r.functions).toEqual([expect.objectContaining({ function: 'cart', requests: 15, stickyRequests: 12, stickyHits: 10, teleports: 1, stickyKeyMissing: 2, replicas: 2 })]);
    expect(r.functions[0]!.hitRatio).toBeCloseTo(10 / 12);
    expect(r.replicas.filter((x) => !x.ok)).toHaveLength(1);
    expect((await rejection(h.as(undefined).sticky.live())).code).toBe('UNAUTHORIZED');
  });
});

describe('sticky.history (viewer; rollups written by StickyRollupCollector)', () => {
  it('stores per-minute growth summed over replicas, surviving a replica restart', async () => {
    const c = new StickyRollupCollector(h.services);
    await c.collect(); // baseline
    replicas[0]!.fns[0]!.requests = 20; // +10
    replicas[0]!.fns[0]!.teleports = 3; // +2
    replicas[1]!.fns[0]!.requests = 7; // +2
    clock = new Date('2026-11-30T12:00:40Z');
    await c.collect();
    replicas[1]!.fns[0]!.requests = 1; // restarted: counts 1
    replicas[1]!.fns[0]!.stickyRequests = 0;
    replicas[1]!.fns[0]!.stickyHits = 0;
    clock = new Date('2026-11-30T12:01:05Z');
    await c.collect();
    const r = await h.as('viewer').sticky.history({ function: 'cart', minutes: 10 });
    expect(r.points).toEqual([
      { minute: '2026-11-30T12:00:00.000Z', requests: 12, stickyRequests: 0, missingKeys: 0, teleports: 2 },
      { minute: '2026-11-30T12:01:00.000Z', requests: 1, stickyRequests: 0, missingKeys: 0, teleports: 0 },
    ]);
  });
  it('validates the window with a path', async () => {
    const err = await rejection(h.as('viewer').sticky.history({ function: 'cart', minutes: 0 }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('minutes');
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).sticky.history({ function: 'cart' }))).code).toBe('UNAUTHORIZED');
  });
});

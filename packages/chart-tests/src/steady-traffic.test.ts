import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const started = Date.now();
    const t = steadyTraffic(40, () => get('/slow'));
    await new Promise((r) => setTimeout(r, 1000));
    const sent = t.sent();
    // Measured, not assumed: a loaded machine fires the timer late, and the traffic catches up.
    const due = ((Date.now() - started) * 40) / 1000;
    const out = await t.stop();
    // 40/s for about 1 s with 300 ms answers: a closed loop of one would have sent 4.
    expect(sent).toBeGreaterThanOrEqual(Math.floor(due) - 3);
    expect(sent).toBeLessThanOrEqual(Math.ceil(due) + 2);
    expect(sent).toBeGreaterThanOrEqual(36);
    // stop() waited for every request in flight.
    expect(out).toHaveLength(t.sent());
    expect(out.every((o) => o.ok && o.value === 'slow')).toBe(true);
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

import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWrkRun, undoWrkCorrection, wrkScript, wrkSlice, writeWrkScript } from './wrk-load.ts';

describe('wrkScript', () => {
  it('quotes header values and bodies as Lua strings', () => {
    const s = wrkScript({ method: 'PUT', pathPrefix: '/v1/state/k', keys: 10, headers: { 'x-a': 'say "hi" \\ there' }, body: '"v"\n' });
    expect(s).toContain('wrk.method = "PUT"');
    expect(s).toContain('wrk.headers["x-a"] = "say \\"hi\\" \\\\ there"');
    expect(s).toContain('wrk.body = "\\"v\\"\\n"');
    expect(s).toContain('"/v1/state/k" .. (i % 10)');
  });
});

describe('parseWrkRun', () => {
  it('expands the histogram into ms samples and reads wrk’s CPU from the children’s `times` line', () => {
    // 5 requests on 5 connections in 1 s: E = 1 s, far above every latency, so nothing was added.
    const out = 'Running 1s test\norrery-wrk requests=5 errors=1 duration=1000000\norrery-wrk latency-us 250:2,1000:3\n';
    const err = '0m0.001s 0m0.002s\n0m0.250s 0m0.125s\n';
    const r = parseWrkRun(out, err, 1, 5);
    expect([...r.samples.latencies].sort((a, b) => a - b)).toEqual([0.25, 0.25, 1, 1, 1]);
    expect(r.samples.errors).toBe(1);
    expect(r.sent).toBe(5);
    expect(r.clientCpuSeconds).toBeCloseTo(0.375, 6);
  });

  it('fails loudly when the script printed nothing', () => {
    expect(() => parseWrkRun('Running 1s test\n', '0m0.0s 0m0.0s\n0m0.1s 0m0.0s\n', 1, 1)).toThrow(/no result/);
  });
});

/** wrk's stats_correct, as its C does it (ascending, adding below each latency ≥ 2E). */
function wrkCorrect(measured: Map<number, number>, expected: number): Map<number, number> {
  const data = new Map(measured);
  const max = Math.max(...data.keys());
  for (let n = expected * 2; n <= max; n++) {
    const count = data.get(n) ?? 0;
    for (let m = n - expected; count && m > expected; m -= expected) data.set(m, (data.get(m) ?? 0) + count);
  }
  return data;
}

describe('undoWrkCorrection', () => {
  it('gives back the measured histogram for any histogram wrk corrected', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 20 })), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 8 }), (pairs, connections) => {
        const measured = new Map<number, number>();
        for (const [us, n] of pairs) measured.set(us, (measured.get(us) ?? 0) + n);
        const requests = [...measured.values()].reduce((a, b) => a + b, 0);
        const durationUs = 100_000;
        const perConnection = Math.floor(requests / connections);
        const expected = perConnection === 0 ? 0 : Math.floor(durationUs / perConnection);
        const corrected = expected > 0 ? wrkCorrect(measured, expected) : measured;
        expect(undoWrkCorrection(corrected, requests, connections, durationUs)).toEqual(new Map([...measured].sort((a, b) => b[0] - a[0])));
      }),
    );
  });

  it('a correction did happen in those cases: wrk adds samples below each slow one', () => {
    const measured = new Map([[100, 10], [1000, 1]]);
    expect(wrkCorrect(measured, 200)).toEqual(new Map([[100, 10], [1000, 1], [800, 1], [600, 1], [400, 1]]));
  });
});

describe('wrkSlice against a real server', () => {
  let server: Server;
  let url: string;
  let dir: string;
  const seen = { get: 0, put: 0, badAuth: 0, keys: new Set<string>(), bodies: new Set<string>() };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-wrk-test-'));
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        if (req.headers.authorization !== 'Bearer s3cret') {
          seen.badAuth++;
          res.writeHead(401).end();
          return;
        }
        seen.keys.add(req.url!);
        if (req.method === 'PUT') {
          seen.put++;
          seen.bodies.add(body);
        } else seen.get++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address() as { port: number };
    url = `http://127.0.0.1:${a.port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the script’s method, headers, body and cycling keys; times every answer; the script file is private', { timeout: 20_000 }, async () => {
    const script = writeWrkScript(dir, 'put', { method: 'PUT', pathPrefix: '/k', keys: 7, headers: { authorization: 'Bearer s3cret' }, body: '"v"' });
    expect(statSync(script).mode & 0o777).toBe(0o600);
    const r = await wrkSlice(url, script, 4, 1);
    expect(r.samples.errors).toBe(0);
    expect(seen.badAuth).toBe(0);
    expect(r.sent).toBeGreaterThan(100);
    // Every answer wrk completed was one the server gave; a few the server gave were still in flight when wrk stopped.
    expect(r.samples.latencies.length).toBe(r.sent);
    expect(seen.put).toBeGreaterThanOrEqual(r.sent);
    expect(seen.put - r.sent).toBeLessThanOrEqual(4);
    expect([...seen.keys].sort()).toEqual(['/k0', '/k1', '/k2', '/k3', '/k4', '/k5', '/k6']);
    expect([...seen.bodies]).toEqual(['"v"']);
    expect(r.clientCpuSeconds).toBeGreaterThan(0);
    expect(r.samples.latencies.every((ms) => ms >= 0 && ms < 5000)).toBe(true);
  });

  it('counts answers of 400 and above as errors', { timeout: 20_000 }, async () => {
    const script = writeWrkScript(dir, 'get', { method: 'GET', pathPrefix: '/k', keys: 3, headers: { authorization: 'Bearer wrong' } });
    const r = await wrkSlice(url, script, 2, 1);
    expect(r.sent).toBeGreaterThan(0);
    expect(r.samples.errors).toBe(r.sent);
    expect(seen.badAuth).toBeGreaterThanOrEqual(r.sent);
  });
});

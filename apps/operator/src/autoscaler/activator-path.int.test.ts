/**
 * targetBurstCapacity end to end: the operator's autoscaler (in process, ticked by the test)
 * answers a real orrery-router's stats pushes with where the activator stands, and the router's
 * admission follows. Workers are slow in-process HTTP servers that record their concurrency.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Revision } from '@orrery/spec';
import { ROUTER_BIN } from '../testing/platform.ts';
import { type SpawnedServer, spawnServer, until } from '../testing/spawn-server.ts';
import { Autoscaler } from './autoscaler.ts';
import { createAutoscalerHandler } from './autoscaler-http.ts';
import { KPA_DEFAULTS } from './kpa-settings.ts';

const KEY = 'default/burst-00001';
// containerConcurrency 2 → a total of 2 per worker; 3 to spare: one worker (2) is short, three (6) enough while idle.
const TEMPLATE = { source: { inline: 'x' }, containerConcurrency: 2, timeoutSeconds: 30, autoscaling: { targetBurstCapacity: 3 } };
const REVISION = { apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name: 'burst-00001', namespace: 'default' }, spec: { function: 'burst', template: TEMPLATE } };
const FUNCTION = { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'burst', namespace: 'default' }, spec: { template: TEMPLATE } };

interface Worker {
  server: Server;
  address: string;
  now: number;
  max: number;
}

async function worker(): Promise<Worker> {
  const w = { now: 0, max: 0 } as Worker;
  w.server = createServer((_req, res) => {
    w.max = Math.max(w.max, ++w.now);
    setTimeout(() => {
      w.now--;
      res.end('ok');
    }, 600);
  });
  await new Promise<void>((r) => w.server.listen(0, '127.0.0.1', r));
  w.address = `127.0.0.1:${(w.server.address() as AddressInfo).port}`;
  return w;
}

describe('targetBurstCapacity moves the activator in and out of the router path', () => {
  let dir: string;
  let router: SpawnedServer;
  let autoscalerServer: Server;
  let workers: Worker[];
  const state = { ready: 1 };
  const autoscaler = new Autoscaler({ defaults: { ...KPA_DEFAULTS, stableWindowMs: 6_000 }, readyOf: () => state.ready, onChange: () => {} });
  const modeOf = () => autoscaler.activatorModes([{ namespace: 'default', revision: 'burst-00001' }])[0];

  const setEndpoints = (list: Worker[]) => {
    const file = join(dir, 'endpoints.yaml');
    writeFileSync(`${file}.tmp`, list.map((w) => `- {namespace: default, function: burst, revision: burst-00001, address: "${w.address}", ready: true}`).join('\n') + '\n');
    renameSync(`${file}.tmp`, file);
  };
  const admin = () => /admin (http:\/\/\S+)/.exec(router.output())![1]!;
  const routerStats = async () => (await (await fetch(`${admin()}/v1/stats`)).json()) as { endpoints: unknown[]; activatorOutOfPath: Array<{ revision: string }> };
  const burst = (n: number) => Promise.all(Array.from({ length: n }, async () => (await fetch(`${router.url}/default/burst/`)).status));
  /** Ticks the KPA until the activator is where we expect, then waits until the router has that answer. */
  const settle = async (inPath: boolean) => {
    await until(
      () => {
        autoscaler.tickAll();
        return modeOf();
      },
      (m) => m?.inPath === inPath,
      10_000,
      `the KPA puts the activator ${inPath ? 'in' : 'out of'} the path`,
    );
    await until(routerStats, (s) => s.activatorOutOfPath.some((m) => m.revision === 'burst-00001') === !inPath, 5_000, 'the router follows');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-burst-'));
    workers = await Promise.all([worker(), worker(), worker()]);
    const handle = createAutoscalerHandler(autoscaler);
    autoscalerServer = createServer((req, res) => {
      void handle(req, res).then((handled) => {
        if (!handled) res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => autoscalerServer.listen(0, '127.0.0.1', r));
    autoscaler.desired(KEY, REVISION as unknown as Revision, true);
    writeFileSync(join(dir, 'routes.yaml'), `${JSON.stringify(FUNCTION)}\n---\n${JSON.stringify(REVISION)}\n`);
    setEndpoints(workers.slice(0, 1));
    router = await spawnServer(ROUTER_BIN, [
      '--port', '0', '--admin-port', '0',
      '--routes-file', join(dir, 'routes.yaml'),
      '--endpoints-file', join(dir, 'endpoints.yaml'),
      '--autoscaler-url', `http://127.0.0.1:${(autoscalerServer.address() as AddressInfo).port}`,
    ]);
    await until(routerStats, (s) => s.endpoints.length === 1, 10_000, 'the router loaded the endpoint');
  }, 30_000);

  afterAll(async () => {
    await router?.stop();
    autoscalerServer?.close();
    for (const w of workers ?? []) w.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('short (1 worker × 2 − 3 < 0): requests wait in the router; never more than containerConcurrency on the worker', { timeout: 15_000 }, async () => {
    await settle(true);
    expect(modeOf()!.excessBurstCapacity).toBe(-1);
    expect(await burst(5)).toEqual([200, 200, 200, 200, 200]);
    expect(workers[0]!.max).toBe(2);
  });

  it('enough (3 workers × 2 − 3 − load ≥ 0): straight to the workers, past containerConcurrency; a burst brings it back', { timeout: 20_000 }, async () => {
    state.ready = 3;
    setEndpoints(workers);
    await until(routerStats, (s) => s.endpoints.length === 3, 10_000, 'the router loaded three endpoints');
    await settle(false);
    for (const w of workers) w.max = 0;
    expect(await burst(9)).toEqual(Array(9).fill(200));
    expect(Math.max(...workers.map((w) => w.max))).toBeGreaterThan(2);

    // Sustained load reaches the panic window: the spare capacity is gone, back in the path. The
    // load goes on during the burst, so the spare capacity cannot come back meanwhile (once it
    // stops, the panic window empties and the activator rightly leaves the path again).
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 9 }, async () => {
        while (loading) await fetch(`${router.url}/default/burst/`).then((r) => r.text());
      }),
    );
    try {
      await settle(true);
      expect(modeOf()!.excessBurstCapacity).toBeLessThan(0);
      for (const w of workers) w.max = 0;
      expect(await burst(9)).toEqual(Array(9).fill(200));
      expect((await routerStats()).activatorOutOfPath.some((m) => m.revision === 'burst-00001'), 'still in the path after the burst').toBe(false);
      expect(Math.max(...workers.map((w) => w.max))).toBeLessThanOrEqual(2);
    } finally {
      loading = false;
      await load;
    }
  });
});

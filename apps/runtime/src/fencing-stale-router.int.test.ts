/**
 * Issue 22 item 4, "two router replicas with different views of a key's owner": real routers,
 * real workers with `--state-fencing on` (what `spec.state.fencing: true` starts), a real
 * statesvc. Router A's view is stale — it still sends the key to W1 — while router B sends it to
 * W2. Both workers write the key; only the writes of the worker that claimed last land, and the
 * stored count equals exactly the writes that were answered 200. When A's view changes (the key
 * moves to W2, then back to W1), A marks the moving request `X-Orrery-Key-Moved: 1` and W1 takes
 * the key back: from then on B's writes through W2 are the refused ones.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { endpointsYaml, eventually as routerEventually, functionYaml, ProcessGroup, type RouterStatsJson } from '@orrery/router/testing';
import type { StatesvcProcess } from '@orrery/statesvc/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATESVC_BIN, statesvcWithKeyspaces } from './testing/real-statesvc.ts';
import { PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const MASTER = Buffer.alloc(32, 0x3c);
const NS = 'shop';
const FN = 'cart';
const REV = 'cart-00001';
const KEY = 'cart-7';

const g = new ProcessGroup();
let statesvc: StatesvcProcess | undefined;
const workers: RuntimeProcess[] = [];

const endpoints = (list: RuntimeProcess[]) => endpointsYaml(list.map((w) => ({ namespace: NS, fn: FN, rev: REV, address: new URL(w.url).host })));

async function router(name: string, to: RuntimeProcess[]) {
  const routes = g.write(`routes-${name}.yaml`, functionYaml({ name: FN, namespace: NS, sticky: '{source: queryparam, name: key}', revisions: [REV] }));
  const r = await g.router(['--router-id', name, '--routes-file', routes, '--endpoints-file', g.write(`endpoints-${name}.yaml`, endpoints(to))]);
  await viewIs(r, to);
  return r;
}

/** Rewrites a router's endpoints file (when `name` is given) and waits until it routes to exactly `to`. */
async function viewIs(r: { admin: string }, to: RuntimeProcess[], name?: string): Promise<void> {
  if (name) g.write(`endpoints-${name}.yaml`, endpoints(to));
  const want = to.map((w) => new URL(w.url).host).sort().join(',');
  await routerEventually(async () => {
    const stats = (await (await fetch(`${r.admin}/v1/stats`)).json()) as RouterStatsJson;
    return stats.endpoints.map((e) => e.address).sort().join(',') === want ? true : undefined;
  }, `the router routing to ${want}`);
}

/** One write of the key through `r`: the answer's status and the count it wrote. */
async function count(r: { url: string }): Promise<{ status: number; count?: number }> {
  const res = await fetch(`${r.url}/${NS}/${FN}/count?key=${KEY}`);
  const body = (await res.json()) as { count?: number };
  return { status: res.status, count: body.count };
}

beforeAll(async () => {
  if (!existsSync(STATESVC_BIN)) return;
  statesvc = await statesvcWithKeyspaces(g.dir, MASTER, [[NS, FN]]);
  const token = deriveStateToken(MASTER, NS, FN);
  for (const name of ['w1', 'w2']) {
    workers.push(
      await startRuntime(
        ['--function', FN, '--revision', REV, '--namespace', NS, '--source-file', PROBE_FIXTURE, '--work-dir', join(g.dir, name),
          '--state-url', statesvc.url, '--state-keyspace', FN, '--state-fencing', 'on'],
        { ORRERY_STATE_TOKEN: token },
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await statesvc?.stop();
  await g.stopAll(); // the routers, and the folder of every file above
}, 60_000);

describe.skipIf(!existsSync(STATESVC_BIN))('fencing with two routers that disagree about a key\'s owner', () => {
  it('only the last claimant\'s writes land; the moved-key header hands the key back', { timeout: 120_000 }, async () => {
    const [w1, w2] = workers as [RuntimeProcess, RuntimeProcess];
    const a = await router('a', [w1]); // stale: still sends the key to w1
    const b = await router('b', [w2]);

    expect(await count(a)).toMatchObject({ status: 200, count: 1 }); // w1 claims
    expect(await count(b)).toMatchObject({ status: 200, count: 2 }); // w2 claims later: w1 is fenced out

    // Both routers keep sending the key, a request through each at the same time (the probe's
    // write is a get + CAS, so one worker's own concurrent writes would race each other): only
    // w2's writes land.
    const viaA: Array<{ status: number }> = [];
    const viaB: Array<{ status: number }> = [];
    for (let round = 0; round < 10; round++) {
      const [x, y] = await Promise.all([count(a), count(b)]);
      viaA.push(x);
      viaB.push(y);
    }
    expect(viaA.every((r) => r.status === 500)).toBe(true); // w1's FencedError surfaces as handler_error
    expect(viaB.every((r) => r.status === 200)).toBe(true);
    expect(w1.stderr()).toMatch(/fenced/i);
    // Nothing of w1's refused writes is in the value: it counts exactly the answered writes.
    expect(await count(b)).toMatchObject({ status: 200, count: 2 + viaB.length + 1 });

    // A's view changes: the key moves to w2 (a teleport for A, which tells w2), then back to w1.
    await viewIs(a, [w2], 'a');
    expect((await count(a)).status).toBe(200);
    await viewIs(a, [w1], 'a');
    const back = await count(a);
    expect(back.status).toBe(200); // w1 was told the key moved back, claimed again and wrote
    expect((await count(b)).status).toBe(500); // now w2 is the stale owner
    expect((await count(a)).status).toBe(200);
    const teleports = ((await (await fetch(`${a.admin}/v1/stats`)).json()) as RouterStatsJson).functions.find((f) => f.function === FN)?.teleports;
    expect(teleports).toBe(2);
  });
});

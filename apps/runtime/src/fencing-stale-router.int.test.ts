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
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildService, ROUTER_BIN, STATESVC_BIN, startChild, startStatesvc, stopChild } from './testing/real-processes.ts';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const MASTER = Buffer.alloc(32, 0x3c);
const NS = 'shop';
const FN = 'cart';
const REV = 'cart-00001';
const KEY = 'cart-7';

let dir: string;
let statesvc: (ChildService & { url: string }) | undefined;
const workers: RuntimeProcess[] = [];
const routers: Array<ChildService & { url: string; admin: string }> = [];

const ROUTES = `---
apiVersion: orrery.dev/v1alpha1
kind: Function
metadata: {name: ${FN}, namespace: ${NS}}
spec:
  template: {source: {inline: "x"}}
  state: {sticky: {source: queryparam, name: key}, fencing: true}
---
apiVersion: orrery.dev/v1alpha1
kind: Revision
metadata: {name: ${REV}, namespace: ${NS}}
spec: {function: ${FN}, template: {source: {inline: "x"}}}
`;
const endpoints = (list: RuntimeProcess[]) => list.map((w) => `- {namespace: ${NS}, function: ${FN}, revision: ${REV}, address: "${new URL(w.url).host}", ready: true}`).join('\n') + '\n';

async function router(name: string, to: RuntimeProcess[]) {
  await writeFile(join(dir, `routes-${name}.yaml`), ROUTES);
  await writeFile(join(dir, `endpoints-${name}.yaml`), endpoints(to));
  const r = await startChild(
    [ROUTER_BIN, '--port', '0', '--admin-port', '0', '--router-id', name, '--routes-file', join(dir, `routes-${name}.yaml`), '--endpoints-file', join(dir, `endpoints-${name}.yaml`)],
    /listening (http:\/\/\S+) admin (http:\/\/\S+)/,
    `router ${name}`,
  );
  const out = { ...r, url: r.match[1]!, admin: r.match[2]! };
  routers.push(out);
  await viewIs(out, to);
  return out;
}

/** Rewrites a router's endpoints file and waits until it routes to exactly `to`. */
async function viewIs(r: { admin: string }, to: RuntimeProcess[], name?: string): Promise<void> {
  if (name) {
    await writeFile(join(dir, `endpoints-${name}.yaml.tmp`), endpoints(to));
    await rename(join(dir, `endpoints-${name}.yaml.tmp`), join(dir, `endpoints-${name}.yaml`));
  }
  const want = to.map((w) => new URL(w.url).host).sort().join(',');
  await eventually(async () => {
    const stats = (await (await fetch(`${r.admin}/v1/stats`)).json()) as { endpoints: Array<{ address: string }> };
    return stats.endpoints.map((e) => e.address).sort().join(',') === want ? true : undefined;
  });
}

/** One write of the key through `r`: the worker that served it and the answer. */
async function count(r: { url: string }): Promise<{ status: number; count?: number }> {
  const res = await fetch(`${r.url}/${NS}/${FN}/count?key=${KEY}`);
  const body = (await res.json()) as { count?: number };
  return { status: res.status, count: body.count };
}

beforeAll(async () => {
  if (!existsSync(STATESVC_BIN) || !existsSync(ROUTER_BIN)) return;
  dir = await mkdtemp(join(tmpdir(), 'orrery-fencing-routers-'));
  statesvc = await startStatesvc(dir, MASTER, [[NS, FN]]);
  const token = deriveStateToken(MASTER, NS, FN);
  for (const name of ['w1', 'w2']) {
    workers.push(
      await startRuntime(
        ['--function', FN, '--revision', REV, '--namespace', NS, '--source-file', PROBE_FIXTURE, '--work-dir', join(dir, name),
          '--state-url', statesvc.url, '--state-keyspace', FN, '--state-fencing', 'on'],
        { ORRERY_STATE_TOKEN: token },
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(routers.map((r) => stopChild(r)));
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await stopChild(statesvc);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!existsSync(STATESVC_BIN) || !existsSync(ROUTER_BIN))('fencing with two routers that disagree about a key\'s owner', () => {
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
    const teleports = ((await (await fetch(`${a.admin}/v1/stats`)).json()) as { functions: Array<{ function: string; teleports: number }> }).functions.find((f) => f.function === FN)?.teleports;
    expect(teleports).toBe(2);
  });
});

/**
 * Cold start: time from the first request to its response for a function at zero, through the
 * real router and operator, with the baseline in the same run.
 *
 *   npx tsx bench/coldstart/index.ts
 *
 * - pool:     executor pool, a warm generic worker available (specialize on the first request)
 * - deploy:   executor deploy at zero (initialScale 0): poke → KPA → spawn an orrery-runtime worker
 * - baseline: spawn a bare node:http server and GET it until the first 200 (before the platform
 *   starts, and again one spawn before each deploy sample: the same conditions as deploy's)
 *
 * Breakdown (same run, same functions' twins, calling the operator directly): pool — the operator's
 * `/v1/executor/specialize` round trip (its own store lookup, the worker's `/v1/specialize`, the
 * code load) and then the first GET straight to the worker; deploy — a poke that waits for the
 * first ready worker (KPA tick, reconcile, spawn of the runtime) and the first GET to it; and the
 * bare spawn of the runtime as the local backend starts it. The routed figure minus these is the
 * router's share.
 *
 * Each row prints its same-run baseline ratio and PASS/MISS against issue 24's goals.
 *
 * ORRERY_BENCH_COLDSTART_SAMPLES (default 30) sets the samples per mode.
 */
import { spawn } from 'node:child_process';
import { type Platform, startPlatform } from '../../apps/operator/src/testing/platform.ts';
import { nodeFlagsFor, withMallocSettings } from '../../apps/cli/src/platform/node-memory-settings.ts';
import { until } from '../../apps/operator/src/testing/spawn-server.ts';
import { listeningUrl } from '../../apps/operator/src/testing/listening-url.ts';
import { runtimeCommand, TSX_RUNTIME_BIN } from '../../apps/operator/src/backends/local/runtime-bundle.ts';
import { processCpuSeconds } from '../process-cpu.ts';

const SAMPLES = Number(process.env.ORRERY_BENCH_COLDSTART_SAMPLES ?? 30);
/** The breakdown needs fewer samples; each adds two functions the operator must reconcile. */
const BREAKDOWN_SAMPLES = Math.min(SAMPLES, 10);
const HANDLER = `export default async () => new Response('ok');`;
/** Issue 24's goals for the cold-start rows (each printed with PASS/MISS). */
const GOALS = { deployRatio: 1.2, poolP50Ms: 10 };
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const t = (n: number) => n.toFixed(1);
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return { p50: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { p50: pct(s, 50), p95: pct(s, 95), min: s[0]!, max: s.at(-1)! };
};

async function baselineOnce(): Promise<number> {
  const code = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });`;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (c) => reject(new Error(`baseline server exited ${c}`)));
  });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
    if (res?.status === 200) {
      await res.text();
      break;
    }
  }
  const ms = performance.now() - t0;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
  return ms;
}

/** Spawn of orrery-runtime (deploy mode, inline code) as the local backend starts it, to its first 200. */
async function runtimeSpawnOnce(cmd: { command: string; args: string[] }, i: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(cmd.command, [...cmd.args, '--port', '0', '--function', 'f', '--revision', 'f-00001', '--work-dir', `${process.env.TMPDIR ?? '/tmp'}/orrery-coldstart-${process.pid}-${i}`], {
    env: { ...process.env, ORRERY_SOURCE_INLINE: HANDLER },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await listeningUrl(child);
  await (await fetch(`${url}/`)).text();
  const ms = performance.now() - t0;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
  return ms;
}

async function postJson(url: string, body: unknown, token: string): Promise<{ ms: number; status: number; body: Record<string, unknown> }> {
  const t0 = performance.now();
  // The operator's /v1/executor and /v1/autoscaler are guarded by the store token.
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  return { ms: performance.now() - t0, status: res.status, body: json };
}

const failures: string[] = [];
/** Latency of one request, or undefined (recorded in `failures`) when it did not answer 200. */
async function timedGet(url: string): Promise<number | undefined> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status === 200) return performance.now() - t0;
  failures.push(`${url} → ${res.status} ${body.slice(0, 160)}`);
  return undefined;
}

type Workers = { pool: { warm: Record<string, number> } };

async function main(): Promise<void> {
  console.log(`coldstart: ${SAMPLES} samples per mode (machine shared with other work: numbers are noisy)`);
  // Every process of this run (baseline spawns too) with the local platform's malloc setting.
  Object.assign(process.env, withMallocSettings(process.env));
  const started = performance.now();
  const baseline: number[] = [];
  for (let i = 0; i < SAMPLES; i++) baseline.push(await baselineOnce());

  const p: Platform = await startPlatform({
    // The operator as `orrery up` runs it (node flags; its environment's malloc setting is set above).
    // ORRERY_BENCH_OPERATOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the operator.
    operatorNodeFlags: [...nodeFlagsFor('operator'), ...(process.env.ORRERY_BENCH_OPERATOR_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])],
    // Resync at the operator's default period (the test harness's 5 s re-reconciles every function all the time).
    operatorArgs: ['--resync-seconds', '30', '--pool-size', '3', '--pool-idle-timeout', '3s', '--autoscaler-stable-window', '6s', '--autoscaler-scale-to-zero-grace-period', '1s', '--autoscaler-tick', '500ms'],
  });
  try {
    const fn = (name: string, executor: 'pool' | 'deploy') => ({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name, namespace: 'default' },
      // initialScale 0: a deploy revision is born at zero, exactly the state we measure.
      spec: { template: { source: { inline: HANDLER }, executor, autoscaling: { initialScale: 0 } } },
    });
    // The operator's CPU per phase: its reconciles (applying the Functions until their Revisions
    // exist) and its cold-start paths (the samples). A reading of its own work on a noisy machine.
    const opPid = p.op.child.pid!;
    const cpuAtStart = processCpuSeconds(opPid);
    for (let i = 0; i < SAMPLES; i++) {
      await p.store.apply(fn(`pool-${i}`, 'pool'));
      await p.store.apply(fn(`deploy-${i}`, 'deploy'));
    }
    for (let i = 0; i < BREAKDOWN_SAMPLES; i++) {
      await p.store.apply(fn(`xpool-${i}`, 'pool'));
      await p.store.apply(fn(`xdeploy-${i}`, 'deploy'));
    }
    await until(async () => (await p.store.list('Revision')).items.length, (n) => n === 2 * (SAMPLES + BREAKDOWN_SAMPLES), 120_000, 'revisions created');
    await p.publishRoutes();
    const cpuAfterApply = processCpuSeconds(opPid);
    const warm = async () => ((await (await fetch(`${p.op.url}/v1/workers`, { headers: { authorization: `Bearer ${p.storeToken}` } })).json()) as Workers).pool.warm['default/nodejs'] ?? 0;

    const pool: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await until(warm, (n) => n >= 3, 60_000, 'pool warm');
      const ms = await timedGet(`${p.routerUrl}/default/pool-${i}/`);
      if (ms !== undefined) pool.push(ms);
    }
    const deploy: number[] = [];
    // A second baseline, one spawn before each deploy sample: the first ran before the platform
    // existed, on a quieter machine (no operator, router or pool workers busy beside it).
    const baselineBeside: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      baselineBeside.push(await baselineOnce());
      const ms = await timedGet(`${p.routerUrl}/default/deploy-${i}/`);
      if (ms !== undefined) deploy.push(ms);
    }

    const cpuAfterSamples = processCpuSeconds(opPid);
    // Breakdown: the operator called directly (no router), then the worker directly.
    const parts: Record<string, number[]> = { specialize: [], opTotal: [], opLookup: [], workerSpecialize: [], load: [], poolFirstGet: [], pokeToReady: [], toSpawn: [], spawnToListening: [], answer: [], deployFirstGet: [], runtimeSpawn: [] };
    for (let i = 0; i < BREAKDOWN_SAMPLES; i++) {
      await until(warm, (n) => n >= 3, 60_000, 'pool warm');
      const sp = await postJson(`${p.op.url}/v1/executor/specialize`, { namespace: 'default', function: `xpool-${i}`, revision: `xpool-${i}-00001` }, p.storeToken);
      const timing = sp.body.timing as { lookupMs: number; totalMs: number; workerMs: number; loadMs: number } | undefined;
      if (sp.status !== 200 || !timing) {
        failures.push(`specialize xpool-${i} → ${sp.status} ${JSON.stringify(sp.body).slice(0, 160)}`);
        continue;
      }
      parts.specialize!.push(sp.ms);
      parts.opTotal!.push(timing.totalMs);
      parts.opLookup!.push(timing.lookupMs);
      parts.workerSpecialize!.push(timing.workerMs);
      parts.load!.push(timing.loadMs);
      const first = await timedGet(`http://${sp.body.address as string}/`);
      if (first !== undefined) parts.poolFirstGet!.push(first);
    }
    for (let i = 0; i < BREAKDOWN_SAMPLES; i++) {
      const poke = await postJson(`${p.op.url}/v1/autoscaler/poke`, { namespace: 'default', function: `xdeploy-${i}`, revision: `xdeploy-${i}-00001`, waitMs: 30_000 }, p.storeToken);
      const addresses = poke.body.addresses as string[] | undefined;
      if (!addresses?.length) {
        failures.push(`poke xdeploy-${i} → ${poke.status} ${JSON.stringify(poke.body).slice(0, 160)}`);
        continue;
      }
      parts.pokeToReady!.push(poke.ms);
      const dt = poke.body.timing as { toSpawnMs: number; spawnToListeningMs: number; answerMs: number } | undefined;
      if (dt) {
        parts.toSpawn!.push(dt.toSpawnMs);
        parts.spawnToListening!.push(dt.spawnToListeningMs);
        parts.answer!.push(dt.answerMs);
      }
      const first = await timedGet(`http://${addresses[0]!}/`);
      if (first !== undefined) parts.deployFirstGet!.push(first);
    }
    const cmd = await runtimeCommand();
    for (let i = 0; i < BREAKDOWN_SAMPLES; i++) parts.runtimeSpawn!.push(await runtimeSpawnOnce(cmd, i));

    const b = stats(baseline);
    const rows = [
      ['baseline: spawn node:http → first 200', b],
      ['baseline again, interleaved with the deploy samples (platform running)', stats(baselineBeside)],
      ['pool executor (warm worker, specialize)', stats(pool)],
      ['deploy executor (at zero, spawn)', stats(deploy)],
    ] as const;
    console.log('\n| mode | p50 ms | p95 ms | min | max | p50 / baseline p50 |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [name, s] of rows) console.log(`| ${name} | ${t(s.p50)} | ${t(s.p95)} | ${t(s.min)} | ${t(s.max)} | ${(s.p50 / b.p50).toFixed(2)} |`);
    const p50 = (k: string) => t(stats(parts[k]!).p50);
    console.log(`\nbreakdown (p50 ms of ${BREAKDOWN_SAMPLES} samples, operator and worker called directly):`);
    console.log(`  pool:   specialize round trip ${p50('specialize')} (in the operator ${p50('opTotal')}: lookup ${p50('opLookup')}, worker /v1/specialize ${p50('workerSpecialize')} of which code load ${p50('load')}) + first GET to the worker ${p50('poolFirstGet')}`);
    console.log(`  deploy: poke → first ready worker ${p50('pokeToReady')} (poke → spawn ${p50('toSpawn')}, spawn → listening ${p50('spawnToListening')}, listening → answer ${p50('answer')}) + first GET to the worker ${p50('deployFirstGet')}; runtime spawn → first 200 alone (${cmd.args[0] === TSX_RUNTIME_BIN ? 'through tsx' : `bundled, plain node: ${cmd.args[0]!}`}) ${p50('runtimeSpawn')}`);
    const ps = stats(pool);
    const ds = stats(deploy);
    console.log(`operator CPU: ${(cpuAfterApply - cpuAtStart).toFixed(2)} s applying ${2 * (SAMPLES + BREAKDOWN_SAMPLES)} Functions until their Revisions exist, ${(cpuAfterSamples - cpuAfterApply).toFixed(2)} s over the ${2 * SAMPLES} routed cold starts`);
    console.log(`\ntargets: pool p50 < 25 ms → ${ps.p50 < 25 ? 'met' : 'missed'}; deploy p50 < 300 ms → ${ds.p50 < 300 ? 'met' : 'missed'}`);
    console.log(`issue 24 goals:`);
    const bb = stats(baselineBeside);
    console.log(`  deploy p50 / baseline p50 ${(ds.p50 / b.p50).toFixed(2)}× (${t(ds.p50)} / ${t(b.p50)} ms; goal ≤ ${GOALS.deployRatio}×): ${verdict(ds.p50 / b.p50 <= GOALS.deployRatio)}`);
    console.log(`  deploy p50 / interleaved baseline p50 ${(ds.p50 / bb.p50).toFixed(2)}× (${t(ds.p50)} / ${t(bb.p50)} ms, same conditions; goal ≤ ${GOALS.deployRatio}×): ${verdict(ds.p50 / bb.p50 <= GOALS.deployRatio)}`);
    console.log(`  pool p50 ${t(ps.p50)} ms (${(ps.p50 / b.p50).toFixed(2)}× the baseline; goal < ${GOALS.poolP50Ms} ms): ${verdict(ps.p50 < GOALS.poolP50Ms)}`);
    if (failures.length) console.log(`\n${failures.length} cold requests failed (not in the percentiles):\n  ${failures.join('\n  ')}`);
    console.log(`ratios: deploy/pool p50 ${(ds.p50 / ps.p50).toFixed(1)}×, baseline/pool p50 ${(b.p50 / ps.p50).toFixed(1)}×`);
  } finally {
    await p.stop();
  }
  console.log(`run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();

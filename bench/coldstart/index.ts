/**
 * Cold start: time from the first request to its response for a function at zero, through the
 * real router and operator, with the baseline in the same run.
 *
 *   npx tsx bench/coldstart/index.ts
 *
 * - pool:     executor pool, a warm generic worker available (specialize on the first request)
 * - deploy:   executor deploy at zero (initialScale 0): poke → KPA → spawn an orrery-runtime worker
 * - baseline: spawn a bare node:http server and GET it until the first 200
 *
 * ORRERY_BENCH_COLDSTART_SAMPLES (default 30) sets the samples per mode.
 */
import { spawn } from 'node:child_process';
import { type Platform, startPlatform } from '../../apps/operator/src/testing/platform.ts';
import { until } from '../../apps/operator/src/testing/spawn-server.ts';

const SAMPLES = Number(process.env.ORRERY_BENCH_COLDSTART_SAMPLES ?? 30);
const HANDLER = `export default async () => new Response('ok');`;

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
  const started = performance.now();
  const baseline: number[] = [];
  for (let i = 0; i < SAMPLES; i++) baseline.push(await baselineOnce());

  const p: Platform = await startPlatform({
    operatorArgs: ['--pool-size', '3', '--pool-idle-timeout', '3s', '--autoscaler-stable-window', '6s', '--autoscaler-scale-to-zero-grace-period', '1s', '--autoscaler-tick', '500ms'],
  });
  try {
    const fn = (name: string, executor: 'pool' | 'deploy') => ({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name, namespace: 'default' },
      // initialScale 0: a deploy revision is born at zero, exactly the state we measure.
      spec: { template: { source: { inline: HANDLER }, executor, autoscaling: { initialScale: 0 } } },
    });
    for (let i = 0; i < SAMPLES; i++) {
      await p.store.apply(fn(`pool-${i}`, 'pool'));
      await p.store.apply(fn(`deploy-${i}`, 'deploy'));
    }
    await until(async () => (await p.store.list('Revision')).items.length, (n) => n === 2 * SAMPLES, 60_000, 'revisions created');
    await p.publishRoutes();
    const warm = async () => ((await (await fetch(`${p.op.url}/v1/workers`)).json()) as Workers).pool.warm['default/nodejs'] ?? 0;

    const pool: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await until(warm, (n) => n >= 3, 60_000, 'pool warm');
      const ms = await timedGet(`${p.routerUrl}/default/pool-${i}/`);
      if (ms !== undefined) pool.push(ms);
    }
    const deploy: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const ms = await timedGet(`${p.routerUrl}/default/deploy-${i}/`);
      if (ms !== undefined) deploy.push(ms);
    }

    const b = stats(baseline);
    const rows = [
      ['baseline: spawn node:http → first 200', b],
      ['pool executor (warm worker, specialize)', stats(pool)],
      ['deploy executor (at zero, spawn)', stats(deploy)],
    ] as const;
    console.log('\n| mode | p50 ms | p95 ms | min | max | p50 / baseline p50 |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [name, s] of rows) console.log(`| ${name} | ${t(s.p50)} | ${t(s.p95)} | ${t(s.min)} | ${t(s.max)} | ${(s.p50 / b.p50).toFixed(2)} |`);
    const ps = stats(pool);
    const ds = stats(deploy);
    console.log(`\ntargets: pool p50 < 25 ms → ${ps.p50 < 25 ? 'met' : 'missed'}; deploy p50 < 300 ms → ${ds.p50 < 300 ? 'met' : 'missed'}`);
    if (failures.length) console.log(`\n${failures.length} cold requests failed (not in the percentiles):\n  ${failures.join('\n  ')}`);
    console.log(`ratios: deploy/pool p50 ${(ds.p50 / ps.p50).toFixed(1)}×, baseline/pool p50 ${(b.p50 / ps.p50).toFixed(1)}×`);
  } finally {
    await p.stop();
  }
  console.log(`run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();

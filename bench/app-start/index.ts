/**
 * Start time and memory of each server component: the compiled bundle the images run
 * (apps/<app>/dist/orrery-<app>.mjs, `npm run build:apps`) against the baseline, tsx running the
 * TypeScript source (apps/<app>/bin/orrery-<app>.mjs, the dev path), alternated in the same run.
 *
 *   npx tsx bench/app-start/index.ts
 *
 * - start: process spawn → first 200 from the component's /healthz
 * - RSS: the process's VmRSS 1 s after that
 *
 * Both run as the images do (NODE_OPTIONS=--enable-source-maps, NODE_ENV=production). The operator
 * runs its local backend, no pool workers (the Kubernetes backend the image runs needs an API
 * server), once with the embedded store (PGlite) and once with Postgres (a fresh database). The registry gets a one-member etcd, statesvc the
 * memory driver, the router an empty routes file, the runtime inline code in deploy mode.
 * ORRERY_BENCH_APP_START_RUNS (default 5) sets the starts per component and variant.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '@orrery/db';
import { EtcdCluster } from '@orrery/etcdcluster';
import { registryArgs } from '../../apps/registry/src/testing/fixture.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNS = Number(process.env.ORRERY_BENCH_APP_START_RUNS ?? 5);
const VARIANTS = ['tsx', 'bundle'] as const;
type Variant = (typeof VARIANTS)[number];

interface Component {
  app: string;
  /** The row's name (the app, or how it ran). */
  name?: string;
  args: (work: string) => string[];
  env?: Record<string, string>;
  /** Which printed URL serves /healthz. */
  health: 'url' | 'admin';
}

const entry = (app: string, v: Variant) => (v === 'tsx' ? `apps/${app}/bin/orrery-${app}.mjs` : `apps/${app}/dist/orrery-${app}.mjs`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

async function startOnce(c: Component, v: Variant, work: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [entry(c.app, v), ...c.args(work)], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '--enable-source-maps', NODE_ENV: 'production', ...c.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const [url, admin] = await new Promise<[string, string | undefined]>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /listening (http:\/\/\S+)(?: admin (http:\/\/\S+))?/.exec(out);
        if (m) resolve([m[1]!, m[2]]);
      });
      child.once('exit', (code) => reject(new Error(`orrery-${c.app} (${v}) exited with ${code}: ${stderr}`)));
    });
    const health = `${c.health === 'admin' ? admin : url}/healthz`;
    for (;;) {
      const res = await fetch(health).catch(() => undefined);
      await res?.arrayBuffer();
      if (res?.status === 200) break;
      if (performance.now() - t0 > 60_000) throw new Error(`${health} not 200 within 60 s`);
      await sleep(5);
    }
    const ms = performance.now() - t0;
    await sleep(1000);
    return { ms, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const range = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

async function main(): Promise<void> {
  const built = spawnSync(process.execPath, ['scripts/build-apps.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build:apps failed');
  const work = mkdtempSync(join(tmpdir(), 'orrery-app-start-'));
  const routes = join(work, 'routes.yaml');
  writeFileSync(routes, 'routes: []\n');
  const etcd = await EtcdCluster.start({ size: 1 });
  const db = await createTestDatabase('orrery_bench');
  const components: Component[] = [
    { app: 'operator', name: 'operator (PGlite)', args: (w) => ['--port', '0', '--data-dir', w, '--pool-size', '0'], health: 'url' },
    { app: 'operator', name: 'operator (Postgres)', args: (w) => ['--port', '0', '--data-dir', w, '--pool-size', '0'], env: { DATABASE_URL: db.url }, health: 'url' },
    { app: 'router', args: () => ['--port', '0', '--admin-port', '0', '--routes-file', routes], health: 'admin' },
    { app: 'statesvc', args: () => ['--port', '0', '--driver', 'memory', '--insecure-pass-through'], health: 'url' },
    { app: 'registry', args: () => registryArgs(etcd.endpoints()), health: 'url' },
    {
      app: 'runtime',
      args: (w) => ['--port', '0', '--function', 'f', '--revision', 'f-00001', '--work-dir', w],
      env: { ORRERY_SOURCE_INLINE: "export default async () => new Response('ok');" },
      health: 'url',
    },
  ];
  console.log(`app-start: ${RUNS} starts per component and variant, alternated; Node ${process.version} (machine shared with other work: numbers are noisy)`);
  const rows: string[][] = [];
  const failures: string[] = [];
  try {
    let n = 0;
    for (const c of components) {
      const got: Record<Variant, { ms: number[]; rss: number[] }> = { tsx: { ms: [], rss: [] }, bundle: { ms: [], rss: [] } };
      for (let i = 0; i < RUNS; i++) {
        for (const v of i % 2 ? [...VARIANTS].reverse() : VARIANTS) {
          try {
            const r = await startOnce(c, v, join(work, `${c.app}-${n++}`));
            got[v].ms.push(r.ms);
            got[v].rss.push(r.rss);
          } catch (err) {
            failures.push(`${c.name ?? c.app} (${v}): ${(err as Error).message.slice(0, 400)}`);
          }
        }
      }
      if (!got.tsx.ms.length || !got.bundle.ms.length) continue;
      const [tMs, bMs, tRss, bRss] = [median(got.tsx.ms), median(got.bundle.ms), median(got.tsx.rss), median(got.bundle.rss)];
      rows.push([
        c.name ?? c.app,
        `${tMs.toFixed(0)} ms (${range(got.tsx.ms, 0)})`,
        `${bMs.toFixed(0)} ms (${range(got.bundle.ms, 0)})`,
        `${(bMs / tMs).toFixed(2)}×`,
        `${tRss.toFixed(0)} MiB (${range(got.tsx.rss, 0)})`,
        `${bRss.toFixed(0)} MiB (${range(got.bundle.rss, 0)})`,
        `${(bRss / tRss).toFixed(2)}×`,
      ]);
    }
  } finally {
    await etcd.close();
    await db.drop();
    rmSync(work, { recursive: true, force: true });
  }
  const head = ['component', 'start, tsx (baseline)', 'start, bundle', 'bundle/tsx', 'RSS, tsx', 'RSS, bundle', 'bundle/tsx'];
  console.log(`\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log('\nmedians, (min–max) of the runs');
  if (failures.length) {
    console.log(`\n${failures.length} start(s) failed:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

await main();

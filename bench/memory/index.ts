/**
 * Resident memory of an idle `npm start` (issue 24): `orrery up` with the examples on its own
 * data dir and ports, left idle, then each component's memory sampled the way `orrery status`
 * shows it (VmRSS), with the private / shared split from /proc/<pid>/smaps_rollup. Baselines in
 * the same run: nginx idle (master + worker) and a bare node:http server, since RSS counts the
 * node binary's shared pages in every node process.
 *
 * `npx tsx bench/memory/index.ts` (~2–3 min). ORRERY_BENCH_MEMORY_IDLE_SECONDS (default 60) is
 * the idle time before sampling; ORRERY_BENCH_MEMORY_SAMPLES (5) samples 5 s apart.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@orrery/etcdcluster';
import { startOrreryUp } from '../../apps/cli/src/testing/orrery-up-process.ts';
import { readPlatformInfo } from '../../apps/cli/src/platform/platform-file.ts';
import { medianMemory, memoryVerdict, parseSmapsRollup, type ProcessMemory } from './memory-goals.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const IDLE_S = Number(process.env.ORRERY_BENCH_MEMORY_IDLE_SECONDS ?? 60);
const SAMPLES = Number(process.env.ORRERY_BENCH_MEMORY_SAMPLES ?? 5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const memoryOf = (pid: number): ProcessMemory | undefined => {
  try {
    return parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  } catch {
    return undefined;
  }
};
const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const sum = (ms: ProcessMemory[]): ProcessMemory => ({
  rssMiB: ms.reduce((a, m) => a + m.rssMiB, 0),
  privateMiB: ms.reduce((a, m) => a + m.privateMiB, 0),
  sharedCleanMiB: ms.reduce((a, m) => a + m.sharedCleanMiB, 0),
});

async function main(): Promise<void> {
  // The bins run the compiled bundles only while they are fresh (scripts/app-launch.mjs).
  if (spawnSync(process.execPath, [join(ROOT, 'scripts', 'app-bundles-fresh.mjs')], { stdio: 'ignore' }).status !== 0) {
    console.log('building the app bundles (npm run build:apps) ...');
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-apps.mjs')], { stdio: 'inherit' });
  }
  const tmp = mkdtempSync(join(tmpdir(), 'orrery-bench-memory-'));
  const started: ChildProcess[] = [];
  const up = startOrreryUp(join(tmp, 'data'), [], { cwd: tmp });
  try {
    // Baselines: nginx as a proxy would run (one worker), a bare node:http server.
    const baselines: Array<{ name: string; pids: () => number[] }> = [];
    const nginx = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
    if (existsSync(nginx)) {
      const port = await freePort();
      writeFileSync(
        join(tmp, 'nginx.conf'),
        `daemon off;\nworker_processes 1;\npid ${tmp}/nginx.pid;\nerror_log ${tmp}/nginx-error.log warn;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n  client_body_temp_path ${tmp}/cb; proxy_temp_path ${tmp}/px; fastcgi_temp_path ${tmp}/fc; uwsgi_temp_path ${tmp}/uw; scgi_temp_path ${tmp}/sc;\n  server { listen 127.0.0.1:${port}; location / { proxy_pass http://127.0.0.1:9; } }\n}\n`,
      );
      const n = spawn(nginx, ['-c', join(tmp, 'nginx.conf'), '-p', tmp, '-e', join(tmp, 'nginx-error.log')], { stdio: 'ignore' });
      started.push(n);
      baselines.push({ name: 'nginx (master + worker)', pids: () => (n.pid ? [n.pid, ...childrenOf(n.pid)] : []) });
    } else console.log(`nginx not found at ${nginx}: no nginx baseline`);
    const bare = spawn(process.execPath, ['-e', "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1')"], { stdio: 'ignore' });
    started.push(bare);
    baselines.push({ name: 'bare node:http server', pids: () => (bare.pid ? [bare.pid] : []) });

    process.stdout.write('starting orrery up ... ');
    const t0 = Date.now();
    await up.ready(10 * 60_000);
    console.log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; idle ${IDLE_S} s before sampling`);
    for (let s = IDLE_S; s > 0; s -= 10) {
      await sleep(Math.min(10, s) * 1000);
      if (s > 10) process.stdout.write(`  ${s - 10} s left\n`);
    }
    const info = readPlatformInfo(join(tmp, 'data'))!;
    const components = info.components.filter((c) => c.pid !== undefined).map((c) => ({ name: c.name, pid: c.pid! }));
    const samples = new Map<string, ProcessMemory[]>();
    const add = (name: string, m: ProcessMemory | undefined) => m && samples.set(name, [...(samples.get(name) ?? []), m]);
    for (let i = 0; i < SAMPLES; i++) {
      for (const c of components) add(c.name, memoryOf(c.pid));
      for (const b of baselines) add(b.name, sum(b.pids().map(memoryOf).filter((m): m is ProcessMemory => !!m)));
      process.stdout.write(`  sample ${i + 1}/${SAMPLES}\n`);
      if (i < SAMPLES - 1) await sleep(5000);
    }

    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`\nidle resident memory, median of ${SAMPLES} samples (MiB; load average ${load}):`);
    console.log('| process | RSS (orrery status) | private | shared clean (node binary, libraries) | goal | verdict |');
    console.log('|---|---:|---:|---:|---:|---|');
    const rows = [...components.map((c) => c.name), ...baselines.map((b) => b.name)];
    let misses = 0;
    for (const name of rows) {
      const list = samples.get(name);
      if (!list?.length) continue;
      const m = medianMemory(list);
      const v = memoryVerdict(name, m);
      if (v.verdict === 'MISS') misses++;
      console.log(`| ${name} | ${m.rssMiB.toFixed(1)} | ${m.privateMiB.toFixed(1)} | ${m.sharedCleanMiB.toFixed(1)} | ${v.goalMiB === undefined ? '-' : `< ${v.goalMiB}`} | ${v.verdict} |`);
    }
    console.log(`\n${misses === 0 ? 'every memory goal met' : `${misses} memory goal(s) missed`} (issue 24: operator < 200, router < 80, statesvc < 80 MiB RSS)`);
  } finally {
    await up.stop();
    for (const c of started) c.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();

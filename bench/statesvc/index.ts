/**
 * bench/statesvc: GET and PUT of 256-byte values through orrery-statesvc for each driver, with
 * the baselines measured in the same run — a bare node:http Map server (memory) and the raw
 * single-statement select/upsert through postgres.js (postgres). Prints ops/s, p50, p99 and
 * the ratios. BENCH_SECONDS (default 2) sets the measured window per cell.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { createTestDatabase } from '@orrery/db';
import { closedLoopSamples, httpLoad, merge, type LoadResult, type Samples } from './load.ts';
import { requireWrk, writeWrkScript, wrkSlice } from './wrk-load.ts';
import { benchKeyspace } from './bench-keyspace.ts';
import { comparisonCells, fmt } from './comparison-cells.ts';
import { startProcess } from './start-process.ts';
import { processCpuSeconds } from '../process-cpu.ts';
import { type IoCounts, processIoCounts } from '../process-io-counts.ts';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1.6);
const WARMUP_MS = 250;
// Each cell alternates service and baseline in slices, so load from other work on the machine
// drifts onto both sides alike.
const SLICES = 2;
const KEYS = 1000;
const VALUE = JSON.stringify('v'.repeat(254)); // 256 bytes of JSON
const POOL = 32;
// BENCH_READ_BATCHING=off / BENCH_WRITE_BATCHING=off run statesvc with `--read-batching off` /
// `--write-batching off` (A/B of the batched statements).
const READ_BATCHING = process.env.BENCH_READ_BATCHING === 'off' ? 'off' : 'on';
const WRITE_BATCHING = process.env.BENCH_WRITE_BATCHING === 'off' ? 'off' : 'on';
// BENCH_HTTP_INGRESS=node runs statesvc with `--http-ingress node` (A/B of the raw ingress).
const HTTP_INGRESS = process.env.BENCH_HTTP_INGRESS === 'node' ? 'node' : 'raw';
// The HTTP sides' load generator: wrk (wrk-load.ts: a C client, so that the 2 cores go to the
// server and Postgres), or BENCH_LOAD=undici for the in-process undici pool of the runs before 2026-12-07 night.
const LOAD = process.env.BENCH_LOAD === 'undici' ? 'undici' : 'wrk';

const stop = (p: ChildProcess) => new Promise<void>((r) => { p.once('exit', () => r()); p.kill('SIGTERM'); });

/** CPU per request of each process a request crosses (µs; /proc and process.cpuUsage). */
interface CpuSplit { client: number; server?: number; serverIo?: IoCounts; db: number }
// hop: the Postgres rows' reference — the raw statement behind a bare HTTP server on statesvc's
// ingress (bare-statement-server.ts), measured in the same slices as the service and the raw statement.
interface Row { driver: string; op: string; conns: number; svc: LoadResult; base: LoadResult; hop?: LoadResult; cpu?: { svc: CpuSplit; base: CpuSplit; hop: CpuSplit } }
const rows: Row[] = [];

type Side = (i: number) => Promise<boolean>;
/** One measured slice of a side: its samples, the requests it sent (warm-up included), and the CPU of a load generator in its own process. */
interface Slice { samples: Samples; sent: number; clientCpuSeconds?: number }
type Slicer = () => Promise<Slice>;

const SLICE_MS = (SECONDS * 1000) / SLICES;

/** A slice of `conns` closed loops in this process (the raw statement; the undici pool). */
function loopSlicer(conns: number, side: Side): Slicer {
  return async () => {
    let sent = 0;
    const samples = await closedLoopSamples(conns, WARMUP_MS, SLICE_MS, (i) => {
      sent++;
      return side(i);
    });
    return { samples, sent };
  };
}

let scripts = 0;
/** The GET or PUT side of an HTTP server, driven by LOAD; `dir` holds wrk's scripts (their headers carry the token). */
function httpSide(dir: string, url: string, headers: Record<string, string>, op: 'GET' | 'PUT', conns: number): { slice: Slicer; close: () => Promise<void> } {
  const putHeaders = { ...headers, 'content-type': 'application/json' };
  if (LOAD === 'wrk') {
    const script = writeWrkScript(dir, `side-${scripts++}`, { method: op, pathPrefix: '/v1/state/k', keys: KEYS, headers: op === 'PUT' ? putHeaders : headers, ...(op === 'PUT' ? { body: VALUE } : {}) });
    return { slice: () => wrkSlice(url, script, conns, SLICE_MS / 1000), close: async () => undefined };
  }
  const client = httpLoad(url, conns);
  const run: Side = (i) => client.request(op, `/v1/state/k${i % KEYS}`, op === 'PUT' ? putHeaders : headers, op === 'PUT' ? VALUE : undefined);
  return { slice: loopSlicer(conns, run), close: () => client.close() };
}

/** The bench process's own CPU seconds: the raw statement's client (and the undici load generator). */
const benchCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** CPU seconds of every Postgres process on the machine (postmaster, backends, WAL writer). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processCpuSeconds(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * CPU per request of each process a request crosses, over the slices of one side: each meter
 * read around the slice, divided by the requests sent in it (warm-ups on both sides of the
 * division). The split of where a request's CPU goes, beside the throughput it bought.
 */
class CpuPerRequest {
  private readonly spent = { client: 0, server: 0, db: 0 };
  /** The server process's system calls and loop sleeps over the same slices. */
  private readonly io = { reads: 0, writes: 0, sleeps: 0 };
  private requests = 0;
  constructor(private readonly serverPid?: number) {}
  async measure(slice: Slicer): Promise<Samples> {
    const read = () => ({ client: benchCpuSeconds(), server: this.serverPid === undefined ? 0 : processCpuSeconds(this.serverPid), db: postgresCpuSeconds() });
    const io0 = this.serverPid === undefined ? undefined : processIoCounts(this.serverPid);
    const before = read();
    const out = await slice();
    const after = read();
    this.requests += out.sent;
    for (const k of ['client', 'server', 'db'] as const) this.spent[k] += after[k] - before[k];
    // wrk's CPU is its own process's; this process only waited for it.
    if (out.clientCpuSeconds !== undefined) this.spent.client += out.clientCpuSeconds;
    if (io0) {
      const io1 = processIoCounts(this.serverPid!);
      for (const k of ['reads', 'writes', 'sleeps'] as const) this.io[k] += io1[k] - io0[k];
    }
    return out.samples;
  }
  get split(): CpuSplit {
    const us = (seconds: number) => (seconds * 1e6) / Math.max(1, this.requests);
    const per = (n: number) => n / Math.max(1, this.requests);
    return {
      client: us(this.spent.client),
      ...(this.serverPid === undefined ? {} : { server: us(this.spent.server), serverIo: { reads: per(this.io.reads), writes: per(this.io.writes), sleeps: per(this.io.sleeps) } }),
      db: us(this.spent.db),
    };
  }
}

/** The Postgres rows' third side (the bare hop) and the server processes whose CPU is metered. */
interface HopReference { hop: Slicer; hopPid: number | undefined; svcPid: number | undefined }

async function interleaved(svc: Slicer, base: Slicer, reference?: HopReference): Promise<Omit<Row, 'driver' | 'op' | 'conns'>> {
  const a: Samples[] = [];
  const b: Samples[] = [];
  const h: Samples[] = [];
  if (!reference) {
    for (let i = 0; i < SLICES; i++) {
      a.push((await svc()).samples);
      b.push((await base()).samples);
    }
    return { svc: merge(a), base: merge(b) };
  }
  const svcCpu = new CpuPerRequest(reference.svcPid);
  const baseCpu = new CpuPerRequest();
  const hopCpu = new CpuPerRequest(reference.hopPid);
  for (let i = 0; i < SLICES; i++) {
    a.push(await svcCpu.measure(svc));
    b.push(await baseCpu.measure(base));
    h.push(await hopCpu.measure(reference.hop));
  }
  return { svc: merge(a), base: merge(b), hop: merge(h), cpu: { svc: svcCpu.split, base: baseCpu.split, hop: hopCpu.split } };
}

/** JIT and connection-pool warm-up before the first measured cell of a server. */
async function warmUp(url: string, headers: Record<string, string>) {
  const client = httpLoad(url, 32);
  const putHeaders = { ...headers, 'content-type': 'application/json' };
  for (const op of ['PUT', 'GET'] as const) {
    await closedLoopSamples(32, 0, 1000, (i) => client.request(op, `/v1/state/k${i % KEYS}`, op === 'PUT' ? putHeaders : headers, op === 'PUT' ? VALUE : undefined));
  }
  await client.close();
}

async function prefillUntilDone(url: string, headers: Record<string, string>) {
  const client = httpLoad(url, 16);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < KEYS) await client.request('PUT', `/v1/state/k${next++}`, headers, VALUE);
  }));
  await client.close();
}


async function main() {
  if (LOAD === 'wrk') requireWrk();
  const { dir, headers, bin, common } = benchKeyspace('orrery-bench-statesvc-', 0x42);
  const tdb = await createTestDatabase('orrery_bench');
  const started = Date.now();
  const loadAtStart = loadavg();
  try {
    // memory driver vs the bare node:http Map server
    const [svc, bare, pg] = await Promise.all([
      startProcess([bin, ...common, '--driver', 'memory', '--http-ingress', HTTP_INGRESS]),
      startProcess(['--import', 'tsx', join(here, 'bare-server.ts')]),
      startProcess([bin, ...common, '--driver', 'postgres', '--database-url', tdb.url, '--pool-size', String(POOL), '--read-batching', READ_BATCHING, '--write-batching', WRITE_BATCHING, '--http-ingress', HTTP_INGRESS]),
    ]);
    await prefillUntilDone(svc.url, headers);
    await prefillUntilDone(bare.url, {});
    await warmUp(svc.url, headers);
    await warmUp(bare.url, {});
    for (const op of ['GET', 'PUT'] as const) {
      for (const conns of [1, 32, 128]) {
        const s = httpSide(dir, svc.url, headers, op, conns);
        const b = httpSide(dir, bare.url, {}, op, conns);
        const r = await interleaved(s.slice, b.slice);
        await s.close();
        await b.close();
        rows.push({ driver: 'memory', op, conns, ...r });
        console.error(`memory ${op} c=${conns}: ${fmt(r.svc.opsPerSec)} ops/s vs bare ${fmt(r.base.opsPerSec)}`);
      }
    }
    await stop(svc.proc);
    await stop(bare.proc);

    // postgres driver vs the raw statement through postgres.js
    await prefillUntilDone(pg.url, headers);
    await warmUp(pg.url, headers);
    const raw = postgres(tdb.url, { max: POOL, onnotice: () => {} });
    await raw`create table bench_raw (k text primary key, v text not null)`;
    await raw`insert into bench_raw (k, v) select 'k' || g, ${VALUE} from generate_series(0, ${KEYS - 1}) g`;
    const hopServer = await startProcess(['--import', 'tsx', join(here, 'bare-statement-server.ts'), tdb.url, HTTP_INGRESS]);
    await warmUp(hopServer.url, {});
    for (const op of ['GET', 'PUT'] as const) {
      for (const conns of [1, 8, 32, 128]) {
        const s = httpSide(dir, pg.url, headers, op, conns);
        const h = httpSide(dir, hopServer.url, {}, op, conns);
        const base: Side = async (i) => {
          try {
            if (op === 'GET') await raw`select v from bench_raw where k = ${`k${i % KEYS}`}`;
            else await raw`insert into bench_raw (k, v) values (${`k${i % KEYS}`}, ${VALUE}) on conflict (k) do update set v = excluded.v`;
            return true;
          } catch {
            return false;
          }
        };
        const r = await interleaved(s.slice, loopSlicer(conns, base), { hop: h.slice, hopPid: hopServer.proc.pid, svcPid: pg.proc.pid });
        await s.close();
        await h.close();
        rows.push({ driver: 'postgres', op, conns, ...r });
        console.error(`postgres ${op} c=${conns}: ${fmt(r.svc.opsPerSec)} ops/s vs raw ${fmt(r.base.opsPerSec)}, hop ${fmt(r.hop!.opsPerSec)}`);
      }
    }
    await raw.end({ timeout: 5 });
    await stop(hopServer.proc);
    await stop(pg.proc);
  } finally {
    await tdb.drop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nbench/statesvc — ${SECONDS}s per side per cell (${SLICES} interleaved slices, ${WARMUP_MS}ms warmup each), run took ${((Date.now() - started) / 1000).toFixed(0)}s, 256-byte values, ${KEYS} keys; baseline: memory = bare node:http Map server, postgres = raw postgres.js statement (pool ${POOL}); read batching ${READ_BATCHING}, write batching ${WRITE_BATCHING}; HTTP load generator ${LOAD === 'wrk' ? 'wrk (1 thread, its own process; whole-second slices)' : 'undici pool in this process'}; load average at the start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`);
  console.log('driver    op   conns   ops/s   p50ms   p99ms | base ops/s  base p50  base p99 | thr ratio  p99 ratio  errors');
  for (const r of rows) {
    console.log(
      [
        r.driver.padEnd(8),
        r.op.padEnd(4),
        String(r.conns).padStart(5),
        ...comparisonCells(r.svc, r.base, { measured: [7, 7, 7], base: [10, 9, 9] }),
      ].join(' '),
    );
  }
  // The split of each Postgres row's gap: the HTTP hop alone (a bare server on statesvc's ingress
  // running the raw statement) against the raw statement, and statesvc against that hop — the
  // part that is Orrery's code (auth, scoping, quotas, metrics, change feed, batching).
  console.log(`\npostgres, the HTTP hop alone (bare ${HTTP_INGRESS === 'raw' ? '@orrery/raw-http' : 'node:http'} server + the raw statement, same slices)`);
  console.log('op   conns  hop ops/s  hop p50  hop p99 | hop/raw thr  hop/raw p99 | statesvc/hop thr  statesvc/hop p99');
  for (const r of rows) {
    if (!r.hop) continue;
    console.log([
      r.op.padEnd(4),
      String(r.conns).padStart(5),
      fmt(r.hop.opsPerSec).padStart(10),
      fmt(r.hop.p50Ms, 2).padStart(8),
      fmt(r.hop.p99Ms, 2).padStart(8),
      '|',
      fmt(r.hop.opsPerSec / r.base.opsPerSec, 2).padStart(11),
      fmt(r.hop.p99Ms / r.base.p99Ms, 2).padStart(12),
      '|',
      fmt(r.svc.opsPerSec / r.hop.opsPerSec, 2).padStart(16),
      fmt(r.svc.p99Ms / r.hop.p99Ms, 2).padStart(17),
    ].join(' '));
  }
  // Where each side's CPU goes per request: the load generator (for the raw side the bench
  // process's postgres.js client), the server process, and every Postgres process together.
  console.log(`\npostgres, CPU µs per request: client (${LOAD === 'wrk' ? 'wrk; raw: the bench process' : 'bench process'}) + server + Postgres = total`);
  console.log('op   conns | raw statement            | bare hop                       | statesvc');
  const cell = (c: CpuSplit) => `${fmt(c.client, 1)} + ${c.server === undefined ? '' : `${fmt(c.server, 1)} + `}${fmt(c.db, 1)} = ${fmt(c.client + (c.server ?? 0) + c.db, 1)}`;
  for (const r of rows) {
    if (!r.cpu) continue;
    console.log([r.op.padEnd(4), String(r.conns).padStart(5), '|', cell(r.cpu.base).padEnd(24), '|', cell(r.cpu.hop).padEnd(30), '|', cell(r.cpu.svc)].join(' '));
  }
  // The most any HTTP service could reach here: the load generator's HTTP client and Postgres
  // (both measured on statesvc's side) with a server process that cost nothing, against the raw
  // statement's whole CPU. Two cores busy on both sides make throughput the inverse of CPU per
  // request, so a ceiling below 0.8 shows that row's goal is out of reach of the server alone.
  console.log('\npostgres, throughput ceiling: raw statement CPU / (statesvc\'s client + Postgres CPU), i.e. a server costing 0 µs');
  console.log('op   conns | cores busy raw / statesvc | ceiling | statesvc thr ratio | server µs the 0.8× goal leaves | server µs spent: statesvc, bare hop');
  for (const r of rows) {
    if (!r.cpu) continue;
    const rawTotal = r.cpu.base.client + r.cpu.base.db;
    const floor = r.cpu.svc.client + r.cpu.svc.db;
    const cores = (c: CpuSplit, ops: number) => ((c.client + (c.server ?? 0) + c.db) * ops) / 1e6;
    console.log([
      r.op.padEnd(4),
      String(r.conns).padStart(5),
      '|',
      `${fmt(cores(r.cpu.base, r.base.opsPerSec), 2)} / ${fmt(cores(r.cpu.svc, r.svc.opsPerSec), 2)}`.padEnd(25),
      '|',
      `${fmt(rawTotal / floor, 2)}×`.padStart(7),
      '|',
      `${fmt(r.svc.opsPerSec / r.base.opsPerSec, 2)}×`.padStart(18),
      '|',
      fmt(Math.max(0, rawTotal / 0.8 - floor), 1).padStart(30),
      '|',
      `${fmt(r.cpu.svc.server ?? 0, 1)}, ${fmt(r.cpu.hop.server ?? 0, 1)}`,
    ].join(' '));
  }
  // Kernel crossings per request of each server (read/write families and loop sleeps): counts the
  // machine's speed does not move, beside the CPU above.
  console.log('\npostgres, server system calls per request: reads / writes / event-loop sleeps');
  console.log('op   conns | statesvc             | bare hop');
  const calls = (c: CpuSplit) => (c.serverIo ? `${fmt(c.serverIo.reads, 2)} / ${fmt(c.serverIo.writes, 2)} / ${fmt(c.serverIo.sleeps, 2)}` : '-');
  for (const r of rows) {
    if (!r.cpu) continue;
    console.log([r.op.padEnd(4), String(r.conns).padStart(5), '|', calls(r.cpu.svc).padEnd(20), '|', calls(r.cpu.hop)].join(' '));
  }
  const find = (d: string, op: string, c: number) => rows.find((r) => r.driver === d && r.op === op && r.conns === c)!;
  const check = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  console.log('\ntargets (judge by ratios: the load generator shares the machine):');
  for (const op of ['GET', 'PUT']) {
    const m32 = find('memory', op, 32);
    const m1 = find('memory', op, 1);
    console.log(`  ${check(m32.svc.opsPerSec >= 0.75 * m32.base.opsPerSec)} memory ${op} throughput @32 ≥ 0.75× bare: ${fmt(m32.svc.opsPerSec / m32.base.opsPerSec, 2)}×`);
    console.log(`  ${check(m32.svc.p99Ms <= 1.5 * m32.base.p99Ms)} memory ${op} p99 @32 ≤ 1.5× bare: ${fmt(m32.svc.p99Ms / m32.base.p99Ms, 2)}×`);
    console.log(`  ${check(m1.svc.p99Ms < 1)} memory ${op} p99 @1 < 1 ms: ${fmt(m1.svc.p99Ms, 2)} ms`);
  }
  // Issue 24's rows: statesvc on Postgres against the raw postgres.js statement of the same run.
  for (const op of ['GET', 'PUT']) {
    for (const c of [8, 32, 128]) {
      const r = find('postgres', op, c);
      const thr = r.svc.opsPerSec / r.base.opsPerSec;
      const p99 = r.svc.p99Ms / r.base.p99Ms;
      console.log(`  ${check(thr >= 0.8)} postgres ${op} throughput @${c} ≥ 0.8× raw statement: ${fmt(thr, 2)}×`);
      console.log(`  ${check(p99 <= 1.3)} postgres ${op} p99 @${c} ≤ 1.3× raw statement: ${fmt(p99, 2)}×`);
    }
    // Dapr's state API adds +1.52 ms p99 over Postgres at 8 connections: statesvc must add less.
    const p8 = find('postgres', op, 8);
    console.log(`  ${check(p8.svc.p99Ms - p8.base.p99Ms < 1.52)} postgres ${op} p99 @8 adds < 1.52 ms over the raw statement: +${fmt(p8.svc.p99Ms - p8.base.p99Ms, 2)} ms`);
  }
  console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

await main();

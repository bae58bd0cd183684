/**
 * bench/state-churn: keyed state through the router while workers come and go.
 *
 *   npx tsx bench/state-churn/index.ts [flags]      (flags and env: see options.ts / --help)
 *
 * One process each of orrery-statesvc (Postgres driver, a fresh database), orrery-operator
 * (local backend, pool executor) and orrery-router; a stateful pool function with a sticky key
 * (`x-bench-key`) pinned at `--workers` specialized workers (minScale = maxScale). The handler
 * keeps a per-worker cache over the state API (handler-source.ts) and times its own state calls.
 *
 * Phases, each number beside its baseline in the same run:
 *   cold start  a stateful pool function's first request (new key, freshly specialized worker)
 *               against a stateless pool function's, alternated sample by sample;
 *   raw         the same two statements statesvc runs for a GET and a CAS, straight through
 *               postgres.js from this process (raw-baseline.ts), half before and half after the
 *               routed phases;
 *   steady      closed-loop load, no churn: the owner-hit and whole-request baseline;
 *   churn       the same load while every `--churn-every-seconds` the longest-serving worker is
 *               sent SIGTERM (it drains, as a deleted pod does) and the pool executor specializes
 *               a replacement (the KPA holds minScale), so sticky keys move off and back on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { stringify } from 'yaml';
import postgres from 'postgres';
import { createTestDatabase } from '@orrery/db';
import { type Platform, STATESVC_BIN, startPlatform } from '../../apps/operator/src/testing/platform.ts';
import { type SpawnedServer, spawnServer, until } from '../../apps/operator/src/testing/spawn-server.ts';
import { STATEFUL_HANDLER, STATELESS_HANDLER, type CacheOutcome, type StateCall } from './handler-source.ts';
import { type LandingCounts, noLandings, OwnerTracker, ownerHitRatio } from './owner-hits.ts';
import { type ChurnOptions, parseOptions, USAGE } from './options.ts';
import { RawBaseline, type RawSamples } from './raw-baseline.ts';
import { routedLoad, routedRequest, type RoutedSample } from './routed-load.ts';
import { type TailSummary, tailSummary } from './tail-latency.ts';
import { WorkerSightings } from './worker-churn.ts';
import { CpuLedger } from './cpu-ledger.ts';
import { processCpuSeconds } from '../process-cpu.ts';

const NS = 'default';
const FN = 'churn';
const STICKY_HEADER = 'x-bench-key';
/** A worker that answered within this window counts as live for the churn's pick. */
const LIVE_WINDOW_MS = 1500;
const RAW_SCOPE = { namespace: 'bench-raw', keyspace: 'raw' };
const readCpu = (pid: number) => {
  try {
    return processCpuSeconds(pid);
  } catch {
    return undefined; // gone
  }
};

/** The processes whose CPU a phase accounts, by group (see cpu-ledger.ts). */
interface Processes {
  groups(): Promise<Record<string, number[]>>;
}

interface RouterFnStats {
  stickyRequests: number;
  stickyHits: number;
  teleports: number;
  dialErrors: number;
}

interface Phase {
  name: string;
  seconds: number;
  requests: number[];
  byLanding: { owner: number[]; moved: number[] };
  get: number[];
  cas: number[];
  landings: LandingCounts;
  cache: Record<CacheOutcome, number>;
  errors: Map<number, number>;
  router?: RouterFnStats;
  removals: number;
  replacementMs: number[];
  workersSeen: number;
  /** Distinct workers that answered in each whole second of the phase. */
  workersPerSecond: number[];
  /** CPU seconds per process group over the phase. */
  cpu: Map<string, number>;
}

const newPhase = (name: string, seconds: number): Phase => ({
  name,
  seconds,
  requests: [],
  byLanding: { owner: [], moved: [] },
  get: [],
  cas: [],
  landings: noLandings(),
  cache: { hit: 0, miss: 0, stale: 0 },
  errors: new Map(),
  removals: 0,
  replacementMs: [],
  workersSeen: 0,
  workersPerSecond: [],
  cpu: new Map(),
});

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');
const median = (xs: number[]) => tailSummary(xs).p50;

function fnDoc(name: string, source: string, o: { state?: Record<string, unknown>; autoscaling?: Record<string, unknown> }) {
  return {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: NS },
    spec: {
      template: { source: { inline: source }, executor: 'pool', containerConcurrency: 0, timeoutSeconds: 30, ...(o.autoscaling ? { autoscaling: o.autoscaling } : {}) },
      ...(o.state ? { state: o.state } : {}),
    },
  };
}

async function routerStats(admin: string): Promise<RouterFnStats> {
  const s = (await (await fetch(`${admin}/v1/stats`)).json()) as { dialErrors: number; functions: Array<{ function: string; stickyRequests: number; stickyHits: number; teleports: number }> };
  const fn = s.functions.find((x) => x.function === FN);
  return { stickyRequests: fn?.stickyRequests ?? 0, stickyHits: fn?.stickyHits ?? 0, teleports: fn?.teleports ?? 0, dialErrors: s.dialErrors };
}

const minus = (a: RouterFnStats, b: RouterFnStats): RouterFnStats => ({
  stickyRequests: a.stickyRequests - b.stickyRequests,
  stickyHits: a.stickyHits - b.stickyHits,
  teleports: a.teleports - b.teleports,
  dialErrors: a.dialErrors - b.dialErrors,
});

/** Runs one routed phase; with `churnEveryMs`, removes a worker that often. */
async function routedPhase(p: Platform, admin: string, procs: Processes, o: ChurnOptions, tracker: OwnerTracker, phase: Phase, seed: number, churnEveryMs?: number): Promise<Phase> {
  const sightings = new WorkerSightings();
  const before = await routerStats(admin);
  const ledger = new CpuLedger(readCpu);
  ledger.begin(await procs.groups());
  const t0 = performance.now();
  const perSecond: Array<Set<string>> = Array.from({ length: Math.floor(phase.seconds) }, () => new Set());
  const onSample = (s: RoutedSample) => {
    if (s.status !== 200 || !s.worker) {
      phase.errors.set(s.status, (phase.errors.get(s.status) ?? 0) + 1);
      return;
    }
    sightings.saw(s.worker, s.sentAt + s.ms);
    perSecond[Math.floor((s.sentAt + s.ms - t0) / 1000)]?.add(s.worker);
    const landing = tracker.land(s.key, s.worker);
    phase.landings[landing]++;
    phase.requests.push(s.ms);
    if (landing !== 'first') phase.byLanding[landing].push(s.ms);
    if (s.cache) phase.cache[s.cache]++;
    for (const c of s.calls) phase[c.op].push(c.ms);
  };
  let timer: NodeJS.Timeout | undefined;
  if (churnEveryMs) {
    timer = setInterval(() => {
      const now = performance.now();
      const victim = sightings.victim(now, LIVE_WINDOW_MS);
      if (!victim) return;
      try {
        ledger.note('workers', [Number(victim)]);
        process.kill(Number(victim), o.signal);
        sightings.remove(victim, now);
        phase.removals++;
      } catch (err) {
        // Already gone (ESRCH): not ours to count.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        sightings.removed.add(victim);
      }
    }, churnEveryMs);
  }
  try {
    await routedLoad({ routerUrl: p.routerUrl, path: `/${NS}/${FN}/`, concurrency: o.concurrency, durationMs: phase.seconds * 1000, keys: o.keys, seed, onSample });
  } finally {
    clearInterval(timer);
  }
  for (const [group, pids] of Object.entries(await procs.groups())) ledger.note(group, pids);
  phase.cpu = ledger.totals();
  phase.router = minus(await routerStats(admin), before);
  phase.replacementMs = sightings.replacementMs;
  phase.workersSeen = sightings.workers.size;
  phase.workersPerSecond = perSecond.map((x) => x.size);
  return phase;
}

interface ColdSample {
  ms: number;
  calls: StateCall[];
}

async function main(): Promise<void> {
  let o: ChurnOptions;
  try {
    if (process.argv.includes('--help')) throw new Error('usage');
    o = parseOptions(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`${(err as Error).message === 'usage' ? '' : `${(err as Error).message}\n`}${USAGE}\n`);
    process.exit(2);
  }
  const started = performance.now();
  const load0 = loadavg();
  console.log(`state-churn: ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), load average ${load0.map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`options: ${JSON.stringify(o)}`);

  const dir = mkdtempSync(join(tmpdir(), 'orrery-bench-churn-'));
  const keyFile = join(dir, 'master.key');
  writeFileSync(keyFile, Buffer.alloc(32, 0x5a).toString('hex'));
  // Pair 0 is an unmeasured warm-up: the first cold start after the platform starts also pays the
  // first use of the router's and the operator's cold paths.
  const coldNames = Array.from({ length: o.coldSamples + 1 }, (_, i) => ({ stateful: `coldsf-${i}`, stateless: `coldsl-${i}` }));
  const maxKeys = Math.max(10_000, o.keys * 2);
  const keyspaces = [{ namespace: NS, keyspace: FN, maxKeys }, ...coldNames.map((c) => ({ namespace: NS, keyspace: c.stateful, maxKeys: 100 }))];
  writeFileSync(join(dir, 'keyspaces.yaml'), stringify(keyspaces));
  const tdb = await createTestDatabase('orrery_bench_churn');
  let svc: SpawnedServer | undefined;
  let p: Platform | undefined;
  let raw: RawBaseline | undefined;
  let backends: postgres.Sql | undefined;
  try {
    svc = await spawnServer(STATESVC_BIN, ['--port', '0', '--driver', 'postgres', '--database-url', tdb.url, '--pool-size', String(o.pgPool), '--master-key-file', keyFile, '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
    p = await startPlatform({
      operatorArgs: [
        '--state-url', svc.url, '--master-key-file', keyFile,
        // A removed worker is replaced at the next reconcile of its revision: keep the resync short.
        '--resync-seconds', '1', '--pool-size', '3', '--pool-idle-timeout', '600s',
        '--autoscaler-stable-window', '6s', '--autoscaler-tick', '500ms',
      ],
    });
    const admin = /admin (http:\/\/\S+)/.exec(p.router.output())![1]!;
    const storeAuth = { authorization: `Bearer ${p.storeToken}` };
    const warm = async () => ((await (await fetch(`${p!.op.url}/v1/workers`, { headers: storeAuth })).json()) as { pool: { warm: Record<string, number> } }).pool.warm[`${NS}/nodejs`] ?? 0;

    const sticky = { source: 'header', name: STICKY_HEADER };
    const revisions = async () => new Set((await p!.store.list('Revision')).items.map((r) => r.metadata.name));

    // Cold starts, one pair of functions at a time (the operator resyncs every function every
    // second: a dozen idle ones made its event loop, and so every specialization, seconds late);
    // a warm generic worker waiting each time; the two kinds alternate who goes first.
    const client = new Pool(p.routerUrl, { connections: 1 });
    const cold = { stateful: [] as ColdSample[], stateless: [] as ColdSample[], failures: [] as string[] };
    for (let i = 0; i <= o.coldSamples; i++) {
      const names = coldNames[i]!;
      await p.store.apply(fnDoc(names.stateful, STATEFUL_HANDLER, { state: { keyspace: names.stateful, maxKeys: 100, sticky } }));
      await p.store.apply(fnDoc(names.stateless, STATELESS_HANDLER, {}));
      await until(revisions, (r) => r.has(`${names.stateful}-00001`) && r.has(`${names.stateless}-00001`), 60_000, `revisions of ${names.stateful} and ${names.stateless}`);
      await p.publishRoutes();
      const order = i % 2 === 0 ? (['stateful', 'stateless'] as const) : (['stateless', 'stateful'] as const);
      for (const kind of order) {
        await until(warm, (n) => n >= 3, 60_000, 'pool warm');
        const s = await routedRequest(client, `/${NS}/${names[kind]}/`, `new-key-${i}`);
        if (s.status !== 200) cold.failures.push(`${names[kind]} → ${s.status}`);
        else if (i > 0) cold[kind].push({ ms: s.ms, calls: s.calls });
      }
      await p.store.delete('Function', NS, names.stateful);
      await p.store.delete('Function', NS, names.stateless);
    }
    await client.close();

    await p.store.apply(fnDoc(FN, STATEFUL_HANDLER, { state: { keyspace: FN, maxKeys, sticky }, autoscaling: { minScale: o.workers, maxScale: o.workers } }));
    await until(revisions, (r) => r.has(`${FN}-00001`), 60_000, `revision of ${FN}`);
    await p.publishRoutes();
    const op = p.op;
    const router = p.router;
    backends = postgres(tdb.url, { max: 1, onnotice: () => {} });
    const pg = backends;
    const procs: Processes = {
      groups: async () => ({
        router: [router.child.pid!],
        operator: [op.child.pid!],
        statesvc: [svc!.child.pid!],
        // Every runtime process: specialized workers and the warm pool that refills them.
        workers: ((await (await fetch(`${op.url}/v1/workers`, { headers: storeAuth })).json()) as { pids: number[] }).pids,
        postgres: (await pg<Array<{ pid: number }>>`select pid from pg_stat_activity where datname = ${tdb.name} and pid <> pg_backend_pid()`).map((r) => r.pid),
        bench: [process.pid],
      }),
    };

    // Warm-up: specialize, reach `workers` ready endpoints, create every key, fill the caches.
    const warmClient = new Pool(p.routerUrl, { connections: o.concurrency });
    const first = await routedRequest(warmClient, `/${NS}/${FN}/`, 'k0');
    if (first.status !== 200) throw new Error(`the first request to ${FN} answered ${first.status}:\n${p.op.output().slice(-2000)}`);
    await until(() => p!.routerEndpoints(FN), (l) => l.length === o.workers, 60_000, `${o.workers} ready endpoints of ${FN}`);
    // Every key once, each landing recorded, so no key's first request falls in a measured phase.
    const tracker = new OwnerTracker();
    for (let i = 0; i < o.keys; i += o.concurrency) {
      const batch = await Promise.all(Array.from({ length: Math.min(o.concurrency, o.keys - i) }, (_, j) => routedRequest(warmClient, `/${NS}/${FN}/`, `k${i + j}`)));
      for (const s of batch) if (s.status === 200 && s.worker) tracker.land(s.key, s.worker);
    }
    await warmClient.close();
    await routedPhase(p, admin, procs, o, tracker, newPhase('warm-up', 3), o.seed * 10);

    raw = new RawBaseline(tdb.url, o.pgPool, { ...RAW_SCOPE, maxKeys });
    await raw.prefill(o.keys);
    const rawLedger = new CpuLedger(readCpu);
    const rawGroups = async () => {
      const g = await procs.groups();
      return { postgres: g.postgres!, bench: g.bench! };
    };
    rawLedger.begin(await rawGroups());
    const rawSlices: RawSamples[] = [await raw.run((o.rawSeconds * 1000) / 2, o.concurrency, o.keys, o.seed * 10 + 1)];
    rawLedger.note('postgres', (await rawGroups()).postgres);
    rawLedger.note('bench', [process.pid]);
    const steady = await routedPhase(p, admin, procs, o, tracker, newPhase('steady (no churn)', o.steadySeconds), o.seed * 10 + 2);
    const churn = await routedPhase(p, admin, procs, o, tracker, newPhase(`churn (1 worker removed every ${o.churnEverySeconds}s)`, o.churnSeconds), o.seed * 10 + 3, o.churnEverySeconds * 1000);
    // The second raw slice: its CPU adds to the first one's (the ledger's readings restart).
    const rawLedger2 = new CpuLedger(readCpu);
    rawLedger2.begin(await rawGroups());
    rawSlices.push(await raw.run((o.rawSeconds * 1000) / 2, o.concurrency, o.keys, o.seed * 10 + 4));
    for (const [group, pids] of Object.entries(await rawGroups())) rawLedger2.note(group, pids);
    const rawCpu = new Map<string, number>();
    for (const t of [rawLedger.totals(), rawLedger2.totals()]) for (const [g, v] of t) rawCpu.set(g, (rawCpu.get(g) ?? 0) + v);
    const rawGet = rawSlices.flatMap((s) => s.get);
    const rawCas = rawSlices.flatMap((s) => s.cas);
    const rawErrors = rawSlices.reduce((a, s) => a + s.errors, 0);

    report(o, { steady, churn }, { get: tailSummary(rawGet), cas: tailSummary(rawCas), errors: rawErrors, iterations: rawSlices.reduce((a, s) => a + s.iterations, 0), cpu: rawCpu }, cold);
    const load1 = loadavg();
    console.log(`\nrun took ${((performance.now() - started) / 1000).toFixed(0)} s; load average at the end ${load1.map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await backends?.end({ timeout: 5 });
    await raw?.close();
    await p?.stop();
    await svc?.stop();
    await tdb.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(o: ChurnOptions, ph: { steady: Phase; churn: Phase }, raw: { get: TailSummary; cas: TailSummary; errors: number; iterations: number; cpu: Map<string, number> }, cold: { stateful: ColdSample[]; stateless: ColdSample[]; failures: string[] }): void {
  const { steady, churn } = ph;
  const row = (name: string, s: TailSummary, base?: TailSummary) =>
    `| ${name} | ${s.n} | ${f(s.p50)} | ${f(s.p99)} | ${f(s.p999)} | ${f(s.max)} | ${base ? `${ratio(s.p50, base.p50)} / ${ratio(s.p99, base.p99)} / ${ratio(s.p999, base.p999)}` : 'baseline'} |`;
  const head = '| what | n | p50 ms | p99 ms | p999 ms | max ms | p50 / p99 / p999 vs baseline |\n|---|---:|---:|---:|---:|---:|---:|';

  console.log('\n### State calls (timed in the handler around the SDK call; baseline: the same statement through raw postgres.js)\n');
  console.log(head);
  for (const op of ['get', 'cas'] as const) {
    console.log(row(`raw postgres.js, ${op === 'get' ? 'GET_ENTRY select' : 'orrery_state_set (CAS)'}`, raw[op]));
    console.log(row(`state ${op}, steady`, tailSummary(steady[op]), raw[op]));
    console.log(row(`state ${op}, churn`, tailSummary(churn[op]), raw[op]));
  }
  if (raw.errors) console.log(`(raw baseline errors: ${raw.errors})`);

  console.log('\n### Whole requests through the router (client side; baseline: the steady phase)\n');
  console.log(head);
  const st = tailSummary(steady.requests);
  console.log(row('steady', st));
  console.log(row('churn, all', tailSummary(churn.requests), st));
  console.log(row('churn, landed on the key’s last worker', tailSummary(churn.byLanding.owner), st));
  console.log(row('churn, key moved', tailSummary(churn.byLanding.moved), st));
  const errs = (x: Phase) => [...x.errors].map(([s, n]) => `${n}× ${s === 0 ? 'no answer' : s}`).join(', ') || 'none';
  console.log(`\nthroughput: steady ${f(steady.requests.length / steady.seconds, 0)} req/s, churn ${f(churn.requests.length / churn.seconds, 0)} req/s; failed requests: steady ${errs(steady)}; churn ${errs(churn)}`);

  console.log('\n### CPU per request, by process (user + system from /proc; moves much less with the machine\'s load than latency does)\n');
  const groups = ['bench', 'router', 'workers', 'statesvc', 'postgres', 'operator'];
  console.log(`| phase | requests | ${groups.map((g) => `${g} µs`).join(' | ')} | total µs |\n|---|---:|${groups.map(() => '---:|').join('')}---:|`);
  const cpuRow = (name: string, n: number, cpu: Map<string, number>) => {
    const per = (g: string) => (cpu.has(g) ? ((cpu.get(g)! * 1e6) / n).toFixed(0) : '–');
    const total = [...cpu.values()].reduce((a, v) => a + v, 0);
    console.log(`| ${name} | ${n} | ${groups.map(per).join(' | ')} | ${((total * 1e6) / n).toFixed(0)} |`);
  };
  cpuRow('raw postgres.js, one GET_ENTRY + one CAS', raw.iterations, raw.cpu);
  cpuRow(steady.name, steady.requests.length, steady.cpu);
  cpuRow(churn.name, churn.requests.length, churn.cpu);

  console.log('\n### Sticky owner hits (a request for a key served before, landing on the worker that served it last; baseline: no churn)\n');
  console.log('| phase | judged | owner hits | moved | owner-hit ratio | handler cache hit / miss / stale | router teleports | router dial errors |\n|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const x of [steady, churn]) {
    const judged = x.landings.owner + x.landings.moved;
    console.log(`| ${x.name} | ${judged} | ${x.landings.owner} | ${x.landings.moved} | ${f(ownerHitRatio(x.landings), 4)} | ${x.cache.hit} / ${x.cache.miss} / ${x.cache.stale} | ${x.router?.teleports ?? '–'} | ${x.router?.dialErrors ?? '–'} |`);
  }
  console.log(`\nchurn/steady owner-hit ratio: ${ratio(ownerHitRatio(churn.landings), ownerHitRatio(steady.landings))}; workers removed: ${churn.removals} (${o.signal}), distinct workers that answered during churn: ${churn.workersSeen}, per second min ${Math.min(...churn.workersPerSecond)} / median ${median(churn.workersPerSecond)} / max ${Math.max(...churn.workersPerSecond)} (steady: ${median(steady.workersPerSecond)}); requests per key per churn interval: ${f(churn.requests.length / churn.seconds / o.keys * o.churnEverySeconds, 2)}; removal → first answer of a new worker: median ${f(median(churn.replacementMs), 0)} ms, max ${f(Math.max(...churn.replacementMs), 0)} ms over ${churn.replacementMs.length}`);

  console.log(`\n### Cold start, pool executor (first request through the router to a function with no worker; a warm generic worker waiting; ${o.coldSamples} samples each, alternated)\n`);
  console.log('| kind | n | p50 ms | max ms | p50 / baseline |\n|---|---:|---:|---:|---:|');
  const sl = tailSummary(cold.stateless.map((c) => c.ms));
  const sf = tailSummary(cold.stateful.map((c) => c.ms));
  console.log(`| stateless function (baseline) | ${sl.n} | ${f(sl.p50, 1)} | ${f(sl.max, 1)} | 1.00× |`);
  console.log(`| stateful function, new key (read miss + create) | ${sf.n} | ${f(sf.p50, 1)} | ${f(sf.max, 1)} | ${ratio(sf.p50, sl.p50)} |`);
  const firstCall = (op: StateCall['op']) => median(cold.stateful.flatMap((c) => c.calls.filter((x) => x.op === op).slice(0, 1).map((x) => x.ms)));
  console.log(`\nstateful cold start: p50 ${f(sf.p50 - sl.p50, 1)} ms over the stateless one; inside it the handler's first state calls in that worker (first use of the SDK: token file, connection to statesvc) take p50 ${f(firstCall('get'), 1)} ms (get, a miss) and ${f(firstCall('cas'), 1)} ms (cas creating the key)`);
  if (cold.failures.length) console.log(`cold requests that failed (not in the table): ${cold.failures.join(', ')}`);
}

await main();

/**
 * bench/soak: the whole local platform (`orrery up`, the embedded default) under steady load
 * while workers die and appear and the canary's traffic moves.
 *
 *   npx tsx bench/soak/index.ts                                  (3 minutes; `npm run bench` runs it)
 *   ORRERY_BENCH_SOAK_SECONDS=1800 npx tsx bench/soak/index.ts   (the 30-minute run)
 *
 * 1. `orrery up` on free ports, a temporary data dir and its own Redis key prefix; waits for
 *    counter, cart, canary, hello-site and grpc-echo to answer through both routers.
 * 2. Capacity probe: closed-loop load (ORRERY_BENCH_SOAK_PROBE_CONCURRENCY connections, default
 *    32, for ORRERY_BENCH_SOAK_PROBE_SECONDS, default 10) over those five through both routers.
 * 3. Soak: open-loop load at ORRERY_BENCH_SOAK_FRACTION (0.5) of the probed rate (or at
 *    ORRERY_BENCH_SOAK_RATE req/s, for comparing two builds at one rate) for
 *    ORRERY_BENCH_SOAK_SECONDS (180). Every 10 s each function loses a worker (SIGKILL; the pid
 *    from the operator's worker list, matched to its listening port) or gains one (minScale + 1
 *    through the admin API's functions.applyManifest, as `orrery apply` does: the autoscaling
 *    block is part of the template, so this rolls out a new revision), alternating (churn-
 *    schedule.ts); every 60 s the canary's split moves (functions.traffic.set, as `orrery
 *    traffic set`). Resident memory and open fds of operator, routers, statesvc, registry and
 *    console are sampled every 10 s.
 * 4. Checks: no failed request (every non-2xx and every connection error, each printed), no
 *    acknowledged counter increment lost (acknowledged POSTs per key against the final read),
 *    memory and fds flat within 10 % after warm-up, the run's first sixth (flatness.ts). Exit 1
 *    when a correctness check misses. Everything it started is stopped on the way out, Ctrl-C
 *    included.
 *
 * The functions get `revisionGC {keep: 2, minAge: 1m}` first, so that the revisions the adds roll
 * out are collected and the store does not grow through the run (it would read as a leak), and
 * the stateful ones `idempotencyRetention: 60s`, so that statesvc's stored write outcomes level
 * off within the run instead of growing for the default 24 h.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import type { OrreryFunction, TrafficTarget } from '@orrery/spec';
import { createApiClient, type ApiClient } from '../../apps/cli/src/connection/api-client.ts';
import { pidAlive } from '../../apps/cli/src/platform/pid-alive.ts';
import { type PlatformInfo, readPlatformInfo } from '../../apps/cli/src/platform/platform-file.ts';
import { type OrreryUp, startOrreryUp } from '../../apps/cli/src/testing/orrery-up-process.ts';
import { removeRedisKeys } from '../../apps/cli/src/testing/redis-key-cleanup.ts';
import { until } from '../../apps/cli/src/testing/until.ts';
import { type ChurnAction, churnActions, nextMinScale, scheduleCounts, stablePercentAt } from './churn-schedule.ts';
import { descriptorWindows, flatness, flatnessWindows, floorsByStretch, type Sample } from './flatness.ts';
import { listenerPids } from './listening-sockets.ts';
import { processResources } from './process-resources.ts';
import { soakRate, soakSettings } from './soak-rate.ts';
import { attributeFailures } from './failure-attribution.ts';
import { type Check, counterVerdict, exitCodeFor, summaryTable } from './summary-table.ts';
import { type MetricSample, operatorWork, parseMetrics } from './operator-work.ts';
import { percentile } from '../statesvc/load.ts';

const NS = 'default';
const FUNCTIONS = ['counter', 'cart', 'canary', 'hello-site', 'grpc-echo'] as const;
const COMPONENTS = ['operator', 'router-1', 'router-2', 'statesvc', 'registry', 'console'] as const;
const TICK_SECONDS = 10;
const SHIFT_SECONDS = 60;
const TOLERANCE = 0.1;
/** A process holding 30 descriptors may hold 33 a minute later with nothing leaking. */
const FD_SLACK = 3;
/** When a descriptor check misses, its floors are printed per stretch of this many seconds. */
const FD_STRETCH_SECONDS = 120;
/** Without maxScale the KPA has no ceiling: the soak's adds stop here. */
const DEFAULT_ADD_CEILING = 3;
const COUNTER_KEYS = 8;
/** Long enough for any retry the SDK makes, short enough that statesvc's outcomes level off within the run. */
const IDEMPOTENCY_RETENTION = '60s';
/** A failure up to this long after an action on its function is charged to that action. */
const ATTRIBUTION_SECONDS = 5;
/** Failures printed one by one; the rest only in the counts by kind. */
const FAILURES_LISTED = 60;
const CART_SESSIONS = 16;
const LOAD_BIN = join(import.meta.dirname, 'load.mjs');
/** load.mjs marks requests slower than this (its `slowMs`). */
const SLOW_REQUEST_MS = 500;

interface LoadTarget {
  name: string;
  method: 'GET' | 'POST';
  track?: 'counter' | 'version';
  variants: Array<{ path: string; headers?: Record<string, string> }>;
}

interface LoadResult {
  seconds: number;
  sent: number;
  ok: number;
  failed: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  maxms: number;
  perTarget: Record<string, { ok: number; failed: number; p50ms?: number; p99ms?: number; maxms?: number }>;
  failureCounts: Record<string, number>;
  failureDetails: Array<{ t: number; target: string; router: number; what: string; body?: string }>;
  failureMarks: Array<{ t: number; target: string }>;
  /** Requests slower than load.mjs's SLOW_MS: start (s into the load), function, router index, ms. */
  slowMarks?: Array<{ t: number; target: string; router: number; ms: number }>;
  counter: Record<string, { acked: number[]; unknown: number[] }>;
}

interface LoadProgress {
  t: number;
  sent: number;
  ok: number;
  failed: number;
  inflight: number;
  window: { ok: number; failed: number; p50ms: number; p99ms: number };
  versions: Record<string, number>;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const pct = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %` : '–');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(line);

function targets(prefix: string): LoadTarget[] {
  return [
    { name: 'counter', method: 'POST', track: 'counter', variants: Array.from({ length: COUNTER_KEYS }, (_, i) => ({ path: `/${NS}/counter/?key=${prefix}-${i}` })) },
    { name: 'cart', method: 'GET', variants: Array.from({ length: CART_SESSIONS }, (_, i) => ({ path: `/${NS}/cart/`, headers: { 'x-session-id': `${prefix}-${i}` } })) },
    { name: 'canary', method: 'GET', track: 'version', variants: [{ path: `/${NS}/canary/` }] },
    { name: 'hello-site', method: 'GET', variants: [{ path: '/', headers: { host: 'hello.localtest.me' } }] },
    { name: 'grpc-echo', method: 'GET', variants: [{ path: `/${NS}/grpc-echo/` }] },
  ];
}

/** Runs load.mjs; `onStart` gets its start (epoch ms), `onProgress` its progress lines; resolves with its result. */
function runLoad(config: Record<string, unknown>, children: Set<ChildProcess>, onProgress: (p: LoadProgress) => void, onStart: (at: number) => void = () => {}): Promise<LoadResult> {
  const child = spawn(process.execPath, [LOAD_BIN, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  let result: LoadResult | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as { type: string; at?: number };
    if (msg.type === 'start') onStart(msg.at!);
    else if (msg.type === 'progress') onProgress(msg as unknown as LoadProgress);
    else if (msg.type === 'result') result = msg as unknown as LoadResult;
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (result) resolve(result);
      else reject(new Error(`the load generator exited (code ${code}, signal ${signal}) without a result`));
    }),
  );
}

interface Workers {
  endpoints: Array<{ function: string; revision: string; address: string; ready: boolean }>;
  pids: number[];
}

class Soak {
  readonly api: ApiClient;
  private readonly storeToken: string;
  readonly samples = new Map<string, { rss: Sample[]; fds: Sample[]; pids: Set<number> }>();
  /** `ms`: how long the admin call (an add or a shift) or the kill took. */
  readonly actions: Array<{ t: number; function?: string; kind: string; what: string; ok: boolean; ms?: number }> = [];
  /** Epoch ms of the load's start: actions are timed on the load's clock. */
  loadStartedAt = Date.now();
  /** When the last SIGKILL went out (finding the pid may take seconds on a busy machine). */
  private lastKillAt = 0;
  private readonly now = () => (Date.now() - this.loadStartedAt) / 1000;
  readonly workerPidsSeen = new Set<number>();
  private readonly base = new Map<string, { minScale: number; maxScale: number }>();

  constructor(readonly info: PlatformInfo, readonly dataDir: string) {
    this.api = createApiClient(info.storeUrl, readFileSync(join(dataDir, 'secrets', 'admin.token'), 'utf8').trim());
    this.storeToken = readFileSync(info.storeTokenFile!, 'utf8').trim();
    for (const c of COMPONENTS) this.samples.set(c, { rss: [], fds: [], pids: new Set() });
  }

  async workers(): Promise<Workers> {
    const res = await fetch(`${this.info.storeUrl}/v1/workers`, { headers: { authorization: `Bearer ${this.storeToken}` }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`GET /v1/workers answered ${res.status}`);
    const w = (await res.json()) as Workers;
    for (const pid of w.pids) this.workerPidsSeen.add(pid);
    return w;
  }

  /** The component pids now (the supervisor restarts a crashed one under a new pid). */
  componentPids(): Map<string, number> {
    const info = readPlatformInfo(this.dataDir) ?? this.info;
    const out = new Map<string, number>();
    for (const c of COMPONENTS) if (info.pids[c] !== undefined) out.set(c, info.pids[c]);
    // The registry the operator runs for the examples' RegistryCluster is not in the platform file.
    if (info.registryUrl) {
      const port = Number(new URL(info.registryUrl).port);
      const pid = listenerPids([port]).get(port);
      if (pid) out.set('registry', pid);
    }
    return out;
  }

  sample(t: number): string {
    const parts: string[] = [];
    for (const [name, pid] of this.componentPids()) {
      const r = processResources(pid);
      const s = this.samples.get(name)!;
      s.pids.add(pid);
      if (!r) continue;
      s.rss.push({ t, value: r.rssBytes });
      s.fds.push({ t, value: r.fds });
      parts.push(`${name} ${mb(r.rssBytes)}/${r.fds}`);
    }
    return parts.join(' ');
  }

  /** Sets revisionGC on each function and remembers its min/max scale (the adds' range). */
  async prepare(): Promise<void> {
    for (const name of FUNCTIONS) {
      // Right after `orrery up` the operator writes every example's status.
      await this.readAndApply(5, async () => {
        const fn = (await this.api.functions.get.query({ namespace: NS, name }));
        const a = fn.spec.template.autoscaling ?? {};
        this.base.set(name, { minScale: a.minScale ?? 0, maxScale: a.maxScale || DEFAULT_ADD_CEILING });
        // A stateful function's writes each leave an idempotency outcome in statesvc for the
        // retention (24 h by default): that would read as statesvc's memory growing all run long.
        await this.apply(fn, (spec) => ({ ...spec, revisionGC: { keep: 2, minAge: '1m' }, ...(spec.state ? { state: { ...spec.state, idempotencyRetention: IDEMPOTENCY_RETENTION } } : {}) }));
      });
    }
  }

  private async apply(fn: OrreryFunction, change: (spec: OrreryFunction['spec']) => OrreryFunction['spec']): Promise<OrreryFunction> {
    const { name, namespace, labels, annotations } = fn.metadata;
    const manifest = { apiVersion: fn.apiVersion, kind: 'Function', metadata: { name, namespace, labels, annotations }, spec: change(structuredClone(fn.spec)) };
    return (await this.api.functions.applyManifest.mutate({ manifest, resourceVersion: fn.metadata.resourceVersion }));
  }

  async act(tick: number, a: ChurnAction): Promise<string> {
    const t = this.now();
    const t0 = performance.now();
    try {
      const done = a.kind === 'kill' ? await this.kill(a.function, tick) : await this.add(a.function);
      if (done === undefined) {
        const what = `skip kill ${a.function}: no ready worker`;
        this.actions.push({ t, function: a.function, kind: 'skip', what, ok: true });
        return what;
      }
      const what = `${done} (${f(performance.now() - t0, 0)} ms)`;
      // An add's new revision takes traffic only once ready: time it from the write, not the start.
      this.actions.push({ t: a.kind === 'kill' ? this.lastKillAt : this.now(), function: a.function, kind: a.kind, what, ok: true, ms: performance.now() - t0 });
      return what;
    } catch (err) {
      const what = `${a.kind} ${a.function} FAILED: ${(err as Error).message}`;
      this.actions.push({ t, function: a.function, kind: a.kind, what, ok: false });
      return what;
    }
  }

  /** Undefined when the function has no ready worker (at zero, or its last one just killed). */
  private async kill(fn: string, tick: number): Promise<string | undefined> {
    const w = await this.workers();
    const ready = w.endpoints.filter((e) => e.function === fn && e.ready);
    if (ready.length === 0) return undefined;
    const victim = ready[tick % ready.length]!;
    const port = Number(victim.address.split(':').at(-1));
    const pid = listenerPids([port]).get(port);
    // Only a pid the operator itself lists as a worker is ours to kill.
    if (!pid || !w.pids.includes(pid)) throw new Error(`no worker pid listens on ${victim.address}`);
    process.kill(pid, 'SIGKILL');
    this.lastKillAt = this.now();
    return `kill ${fn} pid ${pid} (${victim.revision}, ${ready.length} ready)`;
  }

  private add(name: string): Promise<string> {
    return this.readAndApply(3, async () => {
      const fn = (await this.api.functions.get.query({ namespace: NS, name }));
      const base = this.base.get(name)!;
      const current = fn.spec.template.autoscaling?.minScale ?? 0;
      const next = nextMinScale(current, base.minScale, base.maxScale);
      await this.apply(fn, (spec) => ({ ...spec, template: { ...spec.template, autoscaling: { ...spec.template.autoscaling, minScale: next.minScale } } }));
      return `${next.lowered ? 'lower (at maxScale)' : 'add'} ${name} minScale ${current} → ${next.minScale}`;
    });
  }

  /** A read-then-apply, run again (up to `attempts` times) when the apply meets a status write of the operator's. */
  private async readAndApply<T>(attempts: number, readThenApply: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await readThenApply();
      } catch (err) {
        // The operator's status writes move resourceVersion: read again.
        if (attempt >= attempts || !/conflict|was modified/i.test((err as Error).message)) throw err;
      }
    }
  }

  async shiftTraffic(shift: number): Promise<string> {
    const t = this.now();
    const stable = stablePercentAt(shift + 1);
    const t0 = performance.now();
    try {
      const fn = (await this.api.functions.get.query({ namespace: NS, name: 'canary' }));
      const traffic: TrafficTarget[] = [
        { revisionName: 'canary-00001', percent: stable, tag: 'stable' },
        { latestRevision: true, percent: 100 - stable, tag: 'canary' },
      ];
      await this.api.functions.traffic.set.mutate({ namespace: NS, name: 'canary', traffic, generation: fn.metadata.generation });
      const what = `traffic canary: stable (canary-00001) ${stable} %, latest ${100 - stable} % (${f(Date.now() - t * 1000 - this.loadStartedAt, 0)} ms)`;
      this.actions.push({ t, function: 'canary', kind: 'shift', what, ok: true, ms: performance.now() - t0 });
      return what;
    } catch (err) {
      const what = `traffic shift FAILED: ${(err as Error).message}`;
      this.actions.push({ t, function: 'canary', kind: 'shift', what, ok: false });
      return what;
    }
  }

  /** The operator's `GET /metrics` (public), parsed; empty when it does not answer. */
  async operatorMetrics(): Promise<MetricSample[]> {
    try {
      const res = await fetch(`${this.info.storeUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
      return res.ok ? parseMetrics(await res.text()) : [];
    } catch {
      return [];
    }
  }

  async readCounter(router: string, key: string): Promise<number> {
    const r = await until(
      async () => {
        const res = await fetch(`${router}/${NS}/counter/?key=${key}`, { signal: AbortSignal.timeout(30_000) });
        return { status: res.status, body: (await res.json()) as { count?: number } };
      },
      (r) => r.status === 200,
      60_000,
      `GET counter ${key}`,
    );
    return r.body.count ?? 0;
  }
}

async function main(): Promise<number> {
  let settings: ReturnType<typeof soakSettings>;
  try {
    settings = soakSettings(process.env);
  } catch (err) {
    console.error(`soak: ${(err as Error).message}`);
    return 2;
  }
  const startedAt = new Date();
  const load0 = loadavg();
  log(`soak: ${startedAt.toISOString()}, ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), load average ${load0.map((x) => x.toFixed(2)).join(' ')}`);
  log(`settings: ${JSON.stringify(settings)}`);

  const runId = randomBytes(3).toString('hex');
  const redisPrefix = `orrery-bench-soak-${runId}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'orrery-bench-soak-'));
  const children = new Set<ChildProcess>();
  let up: OrreryUp | undefined;
  let soak: Soak | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const c of children) c.kill('SIGKILL');
      await up?.stop();
      // Anything the operator started that outlived `orrery up` (it should be none).
      const survivors = [...(soak?.workerPidsSeen ?? [])].filter(pidAlive);
      for (const pid of survivors) process.kill(pid, 'SIGKILL');
      if (survivors.length) log(`cleanup: ${survivors.length} worker(s) outlived orrery up and were killed: ${survivors.join(', ')}`);
      await removeRedisKeys(redisPrefix);
      rmSync(dataDir, { recursive: true, force: true });
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`\nsoak: ${signal}, stopping everything it started`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    log(`starting orrery up (data dir ${dataDir}, Redis prefix ${redisPrefix})`);
    const t0 = performance.now();
    up = startOrreryUp(dataDir, ['--redis-key-prefix', redisPrefix]);
    const info = await up.ready(240_000);
    log(`orrery up ready in ${f((performance.now() - t0) / 1000)} s: routers ${info.routerUrls.join(', ')}`);
    soak = new Soak(info, dataDir);
    const s = soak;

    // Every target answers through both routers, and the canary serves both revisions.
    const probeTargets = targets(`soak-probe-${runId}`);
    for (const router of info.routerUrls) {
      for (const tg of probeTargets) {
        const v = tg.variants[0]!;
        // undici's request, not fetch: fetch drops a Host header (hello-site is served by host name).
        const answer = async () => {
          const res = await request(`${router}${v.path}`, { method: tg.method, headers: v.headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
          await res.body.dump();
          return res.statusCode;
        };
        await until(answer, (st) => st === 200, 120_000, `${tg.name} answers 200 through ${router}`);
      }
    }
    await until(
      () => s.api.functions.get.query({ namespace: NS, name: 'canary' }) as Promise<OrreryFunction>,
      (fn) => fn.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && (fn.status.traffic ?? []).some((t) => t.revisionName === 'canary-00002'),
      120_000,
      'canary Ready with canary-00002',
    );
    await s.prepare();
    log(`every function answers; revisionGC {keep: 2, minAge: 1m} set on ${FUNCTIONS.join(', ')}, idempotencyRetention ${IDEMPOTENCY_RETENTION} on the stateful ones`);

    // Capacity probe.
    log(`\ncapacity probe: closed loop, ${settings.probeConcurrency} connections over both routers, ${settings.probeSeconds} s`);
    const probe = await runLoad(
      { mode: 'closed', routers: info.routerUrls, targets: probeTargets, durationMs: settings.probeSeconds * 1000, concurrency: settings.probeConcurrency, connections: settings.probeConcurrency, progressEveryMs: 5_000 },
      children,
      (p) => log(`  [probe ${f(p.t, 0)} s] ${p.ok} ok, ${p.failed} failed`),
    );
    const rate = soakRate(probe.rps, settings.fraction, settings.rate);
    log(`capacity: ${f(probe.rps, 0)} req/s (p50 ${f(probe.p50ms)} ms, p99 ${f(probe.p99ms)} ms, ${probe.failed} failed of ${probe.sent}) → soak rate ${rate} req/s (${settings.rate ? 'ORRERY_BENCH_SOAK_RATE' : `${settings.fraction} × capacity`})`);
    if (probe.failed) log(`  probe failures: ${JSON.stringify(probe.failureCounts)}`);

    // The soak.
    const { ticks, shifts } = scheduleCounts(settings.seconds, TICK_SECONDS, SHIFT_SECONDS);
    const windows = flatnessWindows(settings.seconds);
    const fdWindows = descriptorWindows(settings.seconds);
    log(`\nsoak: ${rate} req/s open loop for ${settings.seconds} s; ${ticks} churn ticks (every ${TICK_SECONDS} s: each of ${FUNCTIONS.join(', ')} loses or gains a worker), ${shifts} traffic shifts (every ${SHIFT_SECONDS} s); warm-up ${windows.warmupSeconds} s, flatness windows ${windows.windowSeconds} s (memory) and ${fdWindows.windowSeconds} s (fds)`);
    log('progress: "load" lines: the last 10 s on the load\'s clock (ok/failed, p50/p99, in flight, canary versions answered); "churn" lines: the actions of a tick (each with how long the admin API or the kill took) and every component\'s RSS MB/open fds');
    const soakTargets = targets(`soak-${runId}`);
    let started: (at: number) => void = () => {};
    const loadStarted = new Promise<number>((r) => (started = r));
    const printLoad = (p: LoadProgress) => {
      const versions = Object.entries(p.versions).sort().map(([v, n]) => `${v} ${n}`).join(' / ');
      log(`  [${f(p.t, 0).padStart(4)} s] load  ${p.window.ok} ok / ${p.window.failed} failed, p50 ${f(p.window.p50ms)} ms, p99 ${f(p.window.p99ms)} ms, ${p.inflight} in flight | canary ${versions}`);
    };
    const loadDone = runLoad({ mode: 'open', routers: info.routerUrls, targets: soakTargets, durationMs: settings.seconds * 1000, rate, connections: 64, slowMs: SLOW_REQUEST_MS }, children, printLoad, started);
    s.loadStartedAt = await Promise.race([loadStarted, loadDone.then(() => Date.now())]);
    const metricsAtStart = await s.operatorMetrics();
    // The operator's event-loop delay per churn tick (prom-client's window runs from scrape to scrape).
    const loopMaxMs: number[] = [];
    let finished = false;
    void loadDone.finally(() => (finished = true)).catch(() => {});
    log(`  [   0 s] ${s.sample(0)}`);
    let shift = 0;
    for (let tick = 1; !finished && tick * TICK_SECONDS <= settings.seconds; tick++) {
      const at = s.loadStartedAt + tick * TICK_SECONDS * 1000;
      while (!finished && Date.now() < at) await sleep(Math.min(250, at - Date.now()));
      if (finished) break;
      const t = tick * TICK_SECONDS;
      // Sampled before the actions, which may take seconds on a busy machine: the sample is at t.
      const resources = s.sample(t);
      const loop = operatorWork([], await s.operatorMetrics()).eventLoop;
      if (Number.isFinite(loop.maxms)) loopMaxMs.push(loop.maxms);
      const done: string[] = [];
      if (tick <= ticks) done.push(...(await Promise.all(churnActions(tick - 1, FUNCTIONS).map((a) => s.act(tick, a)))));
      if (t % SHIFT_SECONDS === 0 && shift < shifts) done.push(await s.shiftTraffic(shift++));
      log(`  [${String(t).padStart(4)} s] churn ${done.join('; ') || '–'} | ${resources}`);
    }
    const result = await loadDone;
    s.sample(settings.seconds);
    const work = operatorWork(metricsAtStart, await s.operatorMetrics());

    // The counter: every acknowledged increment must be in the final count.
    await sleep(1_000);
    const counter = result.counter.counter!;
    let acked = 0;
    let lost = 0;
    let unknown = 0;
    let inconsistent = 0;
    const counterLines: string[] = [];
    for (let i = 0; i < COUNTER_KEYS; i++) {
      const key = `soak-${runId}-${i}`;
      const final = await s.readCounter(info.routerUrls[0]!, key);
      const v = counterVerdict(counter.acked[i]!, counter.unknown[i]!, final);
      acked += counter.acked[i]!;
      unknown += counter.unknown[i]!;
      lost += v.lost;
      if (!v.consistent) inconsistent++;
      counterLines.push(`${key}: acknowledged ${counter.acked[i]}, failed ${counter.unknown[i]}, final ${final}${v.lost ? `, LOST ${v.lost}` : ''}${v.unacknowledgedApplied ? `, ${v.unacknowledgedApplied} failed request(s) applied anyway` : ''}`);
    }

    // What the routers did with requests whose worker was killed under them (/v1/stats).
    const retryLines: string[] = [];
    for (const c of (readPlatformInfo(dataDir) ?? info).components.filter((x) => x.name.startsWith('router-') && x.adminUrl)) {
      try {
        const st = (await (await fetch(`${c.adminUrl}/v1/stats`, { signal: AbortSignal.timeout(5_000) })).json()) as { upstreamRetries?: number; upstreamReplays?: number; admitResults?: Record<string, number> };
        // no_entry: the revision had no endpoint this router knew of (the request waited for one: a wake-up, or a rollout's route ahead of its endpoints).
        const admits = Object.entries(st.admitResults ?? {}).map(([k, n]) => `${k} ${n}`).join(', ');
        retryLines.push(`${c.name}: ${st.upstreamRetries ?? 0} sent to another worker after their worker failed them, ${st.upstreamReplays ?? 0} of them replays (onWorkerLoss: replay); admit outcomes (a queued request counts again when admitted): ${admits || 'none'}`);
      } catch (err) {
        retryLines.push(`${c.name}: /v1/stats unreadable (${String(err)})`);
      }
    }

    // Report.
    log(`\n### Load\n`);
    log(`capacity probe: ${f(probe.rps, 0)} req/s closed loop (${settings.probeConcurrency} connections, ${settings.probeSeconds} s, p50 ${f(probe.p50ms)} ms, p99 ${f(probe.p99ms)} ms, failed ${probe.failed})`);
    log(`soak: offered ${rate} req/s for ${f(result.seconds, 0)} s, answered ${f(result.rps, 0)} req/s; ${result.sent} requests, ${result.ok} ok, ${result.failed} failed; p50 ${f(result.p50ms)} ms, p99 ${f(result.p99ms)} ms, max ${f(result.maxms)} ms`);
    log(`per function: ${Object.entries(result.perTarget).map(([n, c]) => `${n} ${c.ok} ok / ${c.failed} failed${c.p99ms === undefined ? '' : ` (p50 ${f(c.p50ms!)}, p99 ${f(c.p99ms)}, max ${f(c.maxms!)} ms)`}`).join(', ')}`);
    const slow = result.slowMarks ?? [];
    if (slow.length) {
      // Charged to the action on the same function before the request ended (a wait for a new worker shows as a kill or an add).
      const ends = slow.map((m) => ({ t: m.t + m.ms / 1000, target: m.target }));
      const byAction = attributeFailures(ends, s.actions.filter((a) => a.ok), ATTRIBUTION_SECONDS);
      const byFunction = slow.reduce((m, x) => m.set(x.target, (m.get(x.target) ?? 0) + 1), new Map<string, number>());
      const bySecond = [...slow.reduce((m, x) => m.set(Math.floor(x.t), [...(m.get(Math.floor(x.t)) ?? []), x.target]), new Map<number, string[]>())].sort((a, b) => b[1].length - a[1].length);
      log(`requests slower than ${SLOW_REQUEST_MS} ms: ${slow.length}; by function: ${[...byFunction].map(([k, n]) => `${k} ${n}`).join(', ')}; by the action on their function they ended within ${ATTRIBUTION_SECONDS} s of: ${[...byAction].map(([k, n]) => `${n} ${k === 'none' ? 'no action' : `a ${k}`}`).join(', ')}`);
      log(`  the seconds with most of them: ${bySecond.slice(0, 8).map(([t, fns]) => `t=${t} s ${fns.length} (${[...new Set(fns)].join(' ')})`).join('; ')}`);
    }
    if (result.failed) {
      log(`\nfailed requests by kind:`);
      for (const [k, n] of Object.entries(result.failureCounts).sort((a, b) => b[1] - a[1])) log(`  ${n}× ${k}`);
      log(`each failure (the first ${Math.min(FAILURES_LISTED, result.failed)} of ${result.failed}; t = seconds into the soak):`);
      for (const d of result.failureDetails.slice(0, FAILURES_LISTED)) log(`  t=${d.t} ${d.target} router-${d.router + 1}: ${d.what}${d.body ? ` — ${d.body.replace(/\s+/g, ' ')}` : ''}`);
      const byAction = attributeFailures(result.failureMarks, s.actions.filter((a) => a.ok), ATTRIBUTION_SECONDS);
      log(`the action on the same function each failure followed (within ${ATTRIBUTION_SECONDS} s): ${[...byAction].map(([k, n]) => `${n} after ${k === 'none' ? 'no action' : `a ${k}`}`).join(', ')}`);
      const okActions = s.actions.filter((a) => a.ok);
      const unexplained = result.failureMarks.filter((m) => attributeFailures([m], okActions, ATTRIBUTION_SECONDS).has('none'));
      if (unexplained.length) {
        log(`failures no action on their function explains, by function and second: ${[...unexplained.reduce((m, u) => m.set(`${u.target}@${Math.floor(u.t)}s`, (m.get(`${u.target}@${Math.floor(u.t)}s`) ?? 0) + 1), new Map<string, number>())].map(([k, n]) => `${k}×${n}`).join(', ')}`);
      }
      log(`churn actions around them:`);
      const failTimes = result.failureMarks.map((d) => d.t);
      for (const a of s.actions) if (failTimes.some((t) => t >= a.t - 1 && t <= a.t + TICK_SECONDS)) log(`  t=${f(a.t, 2)} ${a.what}`);
      // The routers say why no retry or replay took a request that failed 502 upstream_error
      // (attempts, losses, whether the body was held); the data dir goes with the cleanup.
      const said = routerFailureLines(dataDir);
      log(`the routers' own account of those 502s (${said.length}):`);
      for (const line of said.slice(0, FAILURES_LISTED)) log(`  ${line}`);
    }
    log(`\n### Requests whose worker was killed under them\n`);
    for (const l of retryLines) log(`  ${l}`);
    log(`\n### The operator's work over the soak (its /metrics at the load's start and end)\n`);
    for (const r of work.reconciles) log(`  ${r.kind}: ${r.success} reconciles, ${r.error} failed (retried with backoff), ${f(r.seconds, 2)} s in them`);
    log(`  Events: ${Object.entries(work.events).map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}; CPU ${f(work.cpuSeconds)} s`);
    log(`  worker starts that waited for a start slot (--worker-start-concurrency): ${work.startWaits.count}, ${f(work.startWaits.seconds, 1)} s in all`);
    const sortedLoop = Float64Array.from(loopMaxMs).sort();
    const loopAt = (q: number) => percentile(sortedLoop, q * 100);
    log(`  event-loop delay, the longest in each ${TICK_SECONDS} s: median ${f(loopAt(0.5))} ms, p90 ${f(loopAt(0.9))} ms, max ${f(loopAt(1))} ms; ${sortedLoop.filter((x) => x > 100).length} of ${sortedLoop.length} ticks held the thread > 100 ms`);
    log(`\n### Counter (acknowledged POSTs per key against the final GET)\n`);
    for (const l of counterLines) log(`  ${l}`);
    const failedActions = s.actions.filter((a) => !a.ok);
    log(`\n### Churn: ${s.actions.filter((a) => a.ok && a.kind === 'kill').length} workers killed (${s.actions.filter((a) => a.kind === 'skip').length} kills skipped: no ready worker), ${s.actions.filter((a) => a.ok && a.kind === 'add').length} scale changes (new revisions), ${s.actions.filter((a) => a.ok && a.kind === 'shift').length} traffic shifts, ${failedActions.length} actions failed`);
    for (const a of failedActions) log(`  t=${f(a.t, 2)} ${a.what}`);
    for (const kind of ['add', 'kill', 'shift']) {
      const ms = Float64Array.from(s.actions.filter((a) => a.kind === kind && a.ms !== undefined).map((a) => a.ms!)).sort();
      const at = (q: number) => percentile(ms, q * 100);
      if (ms.length) log(`  ${kind}s (${ms.length}): p50 ${f(at(0.5), 0)} ms, p95 ${f(at(0.95), 0)} ms, p99 ${f(at(0.99), 0)} ms, slowest ${f(at(1), 0)} ms`);
    }

    log(`\n### Resources (after ${windows.warmupSeconds} s of warm-up; RSS: the median of the first ${windows.windowSeconds} s → of the last ${windows.windowSeconds} s; fds: the floor of the first ${fdWindows.windowSeconds} s → of the last ${fdWindows.windowSeconds} s)\n`);
    log('| component | pids | RSS first MB | RSS last MB | RSS change | fds first | fds last | fds change |\n|---|---|---:|---:|---:|---:|---:|---:|');
    const checks: Check[] = [
      { name: 'failed requests (non-2xx + connection errors)', figure: `${result.failed} of ${result.sent}`, goal: '0', pass: result.failed === 0, correctness: true },
      { name: 'acknowledged counter increments lost', figure: `${lost} of ${acked} (${unknown} failed POSTs)`, goal: '0', pass: lost === 0 && inconsistent === 0, correctness: true },
    ];
    const restarts: string[] = [];
    const fdSeries: string[] = [];
    for (const [name, series] of s.samples) {
      const w = { ...windows, totalSeconds: settings.seconds, tolerance: TOLERANCE };
      const rss = flatness(series.rss, w);
      const fds = flatness(series.fds, { ...w, ...fdWindows, minSlack: FD_SLACK, statistic: 'floor' });
      if (series.pids.size > 1) restarts.push(`${name} (pids ${[...series.pids].join(', ')})`);
      log(`| ${name} | ${[...series.pids].join(', ')} | ${mb(rss.first)} | ${mb(rss.last)} | ${pct(rss.change)} | ${f(fds.first, 0)} | ${f(fds.last, 0)} | ${pct(fds.change)} |`);
      checks.push({ name: `${name} resident memory`, figure: `${mb(rss.first)} → ${mb(rss.last)} MB (${pct(rss.change)})`, goal: `≤ +${TOLERANCE * 100} %`, pass: rss.flat && series.pids.size === 1, correctness: false });
      checks.push({ name: `${name} open fds`, figure: `${f(fds.first, 0)} → ${f(fds.last, 0)} (${pct(fds.change)})`, goal: `≤ +${TOLERANCE * 100} % (or +${FD_SLACK})`, pass: fds.flat && series.pids.size === 1, correctness: false });
      // A descriptor miss gets its series: a leak raises every later stretch's floor; connections busy in the last window do not.
      if (!fds.flat) fdSeries.push(`  ${name} fds, the floor of each ${FD_STRETCH_SECONDS} s after warm-up: ${floorsByStretch(series.fds, windows.warmupSeconds, FD_STRETCH_SECONDS).join(', ')}`);
    }
    for (const line of fdSeries) log(line);
    checks.push({ name: 'component restarts', figure: restarts.join(', ') || '0', goal: '0', pass: restarts.length === 0, correctness: false });
    checks.push({ name: 'churn actions carried out', figure: `${s.actions.length - failedActions.length} of ${s.actions.length}`, goal: 'all', pass: failedActions.length === 0, correctness: false });

    log(`\n### Checks\n`);
    log(summaryTable(checks));
    const load1 = loadavg();
    log(`\nsoak took ${f((Date.now() - startedAt.getTime()) / 1000, 0)} s; load average at the start ${load0.map((x) => x.toFixed(2)).join(' ')}, at the end ${load1.map((x) => x.toFixed(2)).join(' ')} (a shared machine: resource figures move with it)`);
    return exitCodeFor(checks);
  } finally {
    await cleanup();
  }
}

/** The routers' log lines about requests that failed with 502 upstream_error (data-plane.ts). */
function routerFailureLines(dataDir: string): string[] {
  const dir = join(dataDir, 'logs', '_platform');
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.startsWith('router')).sort()) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line.includes('failed with 502 upstream_error')) out.push(`${name}: ${line}`);
  }
  return out;
}

process.exitCode = await main().catch((err: Error) => {
  console.error(`soak failed: ${err.stack ?? err.message}`);
  return 1;
});
// Keep-alive sockets of the admin API client must not hold the process open once all is stopped.
setTimeout(() => process.exit(), 2_000).unref();

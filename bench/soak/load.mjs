// The soak's load generator, in its own process so that its CPU is not the orchestrator's and a
// busy event loop here never delays the churn. One JSON argument (see index.ts `LoadConfig`):
//   mode "closed": `concurrency` loops, each sending the next request when the last one ends
//                  (the capacity probe);
//   mode "open":   `rate` requests per second on a fixed schedule whatever the answers take
//                  (the soak: a slow platform gets more requests in flight, not fewer requests).
// Request i goes to targets[i % targets.length], variant ⌊i / targets.length⌋, through
// routers[i % routers.length]. No retries: a real client of a non-idempotent POST would not
// retry either, and the failures are what the soak measures.
// Prints {"type":"progress",…} every `progressEveryMs` and one {"type":"result",…} at the end.
import { Pool } from 'undici';

const cfg = JSON.parse(process.argv[2]);
const { mode, routers, targets, durationMs } = cfg;
const progressEveryMs = cfg.progressEveryMs ?? 10_000;
// Longer than any example's timeoutSeconds (30 s): the router's own 504 shows, not the client's give-up.
const REQUEST_TIMEOUT_MS = 60_000;
const MAX_FAILURE_DETAILS = 200;
// A request slower than this is marked (time, function, router, ms) so the orchestrator can say
// which function and which action the latency tail follows.
const SLOW_MS = cfg.slowMs ?? 500;
const MAX_SLOW_MARKS = 20_000;

const pools = routers.map((r) => new Pool(r, { connections: cfg.connections ?? 64, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS }));
const started = performance.now();
// The orchestrator times its churn on this clock: failures and actions then share one time axis.
console.log(JSON.stringify({ type: 'start', at: Date.now() }));
const elapsedS = () => (performance.now() - started) / 1000;

let sent = 0;
let inflight = 0;
let ok = 0;
let failed = 0;
const latencies = [];
const failureDetails = [];
// Every failure's time and function (the details stop at MAX_FAILURE_DETAILS), for attributing them to actions.
const failureMarks = [];
const failureCounts = {};
const perTarget = Object.fromEntries(targets.map((t) => [t.name, { ok: 0, failed: 0 }]));
const latenciesByTarget = Object.fromEntries(targets.map((t) => [t.name, []]));
const slowMarks = [];
// Counter keys: increments acknowledged with a 200, and those whose outcome is unknown (failed).
const counter = Object.fromEntries(targets.filter((t) => t.track === 'counter').map((t) => [t.name, { acked: t.variants.map(() => 0), unknown: t.variants.map(() => 0) }]));
// Versions answered per progress window (the canary's traffic split as the client sees it).
let versions = {};
let window = { ok: 0, failed: 0, latencies: [] };

const quantile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);

function fail(target, router, what, body) {
  failed++;
  window.failed++;
  perTarget[target.name].failed++;
  const key = `${target.name} ${what}`;
  failureCounts[key] = (failureCounts[key] ?? 0) + 1;
  if (failureMarks.length < 100_000) failureMarks.push({ t: Number(elapsedS().toFixed(2)), target: target.name });
  if (failureDetails.length < MAX_FAILURE_DETAILS) failureDetails.push({ t: Number(elapsedS().toFixed(2)), target: target.name, router, what, body: body?.slice(0, 200) });
}

async function one(i) {
  const target = targets[i % targets.length];
  const variantIndex = Math.floor(i / targets.length) % target.variants.length;
  const variant = target.variants[variantIndex];
  const routerIndex = i % routers.length;
  const t0 = performance.now();
  sent++;
  inflight++;
  try {
    const res = await pools[routerIndex].request({ method: target.method, path: variant.path, headers: variant.headers ?? {}, body: variant.body });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (res.statusCode < 200 || res.statusCode >= 300) {
      // The router's error bodies carry a stable code (upstream_error, draining, …): count by it.
      let code = '';
      try {
        code = JSON.parse(text).code ?? '';
      } catch {
        // not JSON: the status alone
      }
      fail(target, routerIndex, `HTTP ${res.statusCode}${code ? ` ${code}` : ''}`, text);
      if (target.track === 'counter') counter[target.name].unknown[variantIndex]++;
      return;
    }
    ok++;
    window.ok++;
    perTarget[target.name].ok++;
    latencies.push(ms);
    window.latencies.push(ms);
    latenciesByTarget[target.name].push(ms);
    if (ms > SLOW_MS && slowMarks.length < MAX_SLOW_MARKS) slowMarks.push({ t: Number(((t0 - started) / 1000).toFixed(2)), target: target.name, router: routerIndex, ms: Math.round(ms) });
    if (target.track === 'counter') counter[target.name].acked[variantIndex]++;
    if (target.track === 'version') {
      const v = JSON.parse(text).version ?? '?';
      versions[v] = (versions[v] ?? 0) + 1;
    }
  } catch (err) {
    fail(target, routerIndex, `error ${err.code ?? err.name}: ${err.message}`);
    if (target.track === 'counter') counter[target.name].unknown[variantIndex]++;
  } finally {
    inflight--;
  }
}

const progress = setInterval(() => {
  const l = window.latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ type: 'progress', t: Number(elapsedS().toFixed(1)), sent, ok, failed, inflight, window: { ok: window.ok, failed: window.failed, p50ms: quantile(l, 0.5), p99ms: quantile(l, 0.99) }, versions }));
  window = { ok: 0, failed: 0, latencies: [] };
  versions = {};
}, progressEveryMs);

const running = new Set();
const track = (p) => {
  running.add(p);
  p.finally(() => running.delete(p));
};

if (mode === 'closed') {
  let next = 0;
  const loop = async () => {
    while (performance.now() - started < durationMs) await one(next++);
  };
  await Promise.all(Array.from({ length: cfg.concurrency }, loop));
} else {
  // Catch up to the schedule on each tick: timers fire late on a busy machine, the rate holds.
  const intervalMs = 1000 / cfg.rate;
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now() - started;
      const due = Math.floor(Math.min(now, durationMs) / intervalMs);
      while (sent < due) track(one(sent));
      if (now >= durationMs) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
}
const loadMs = performance.now() - started;
await Promise.all([...running]);
clearInterval(progress);
await Promise.all(pools.map((p) => p.close()));
latencies.sort((a, b) => a - b);
for (const [name, l] of Object.entries(latenciesByTarget)) {
  l.sort((a, b) => a - b);
  Object.assign(perTarget[name], { p50ms: quantile(l, 0.5), p99ms: quantile(l, 0.99), maxms: l.at(-1) ?? NaN });
}
console.log(
  JSON.stringify({
    type: 'result',
    mode,
    seconds: loadMs / 1000,
    sent,
    ok,
    failed,
    rps: (ok / loadMs) * 1000,
    p50ms: quantile(latencies, 0.5),
    p99ms: quantile(latencies, 0.99),
    maxms: latencies.at(-1) ?? NaN,
    perTarget,
    failureCounts,
    failureDetails,
    failureMarks,
    slowMarks,
    counter,
  }),
);

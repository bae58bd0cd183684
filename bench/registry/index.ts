/**
 * Registry benchmark against a 3-member local etcd, with the raw etcd3 baseline in the same run.
 *
 *   npx tsx bench/registry/index.ts
 *
 * ORRERY_BENCH_REGISTRY_SECONDS (default 5) sets each throughput phase's length,
 * ORRERY_BENCH_REGISTRY_INSTANCES (default 10000) the query population,
 * ORRERY_BENCH_REGISTRY_WATCHERS (default 500) the fan-out width,
 * ORRERY_BENCH_REGISTRY_WARMUP_SECONDS (default 5) the unmeasured warm-up of the baseline and of
 * register before their measured phases.
 * ORRERY_BENCH_REGISTRY_ONLY=register runs just the register comparison, as
 * ORRERY_BENCH_REGISTRY_ROUNDS (default 3) rounds of baseline / leader-only raw / register, each
 * with the CPU every process spent per operation (the ratio on a shared machine moves with its
 * load; a round's phases face about the same load, and CPU per operation depends on it less).
 * ORRERY_BENCH_REGISTRY_ONLY=query fills the query population and runs just the query rows.
 * Every row prints its same-run baseline, the ratio and PASS/MISS against issue 24's goals.
 * ORRERY_BENCH_REGISTRY_NODE_ARGS (space-separated) are given to the registry's node, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/registry-prof".
 * ORRERY_BENCH_REGISTRY_WRITE_BATCHING=off starts the registry with `--write-batching off` (A/B).
 */
import { request as httpRequest, Agent } from 'node:http';
import { Pool } from 'undici';
import { EtcdCluster } from '@orrery/etcdcluster';
import { Etcd3 } from 'etcd3';
import { spawnRegistry } from '../../apps/registry/src/testing/fixture.ts';
import { processCpuSeconds } from '../process-cpu.ts';

const SECONDS = Number(process.env.ORRERY_BENCH_REGISTRY_SECONDS ?? 5);
const INSTANCES = Number(process.env.ORRERY_BENCH_REGISTRY_INSTANCES ?? 10_000);
const WATCHERS = Number(process.env.ORRERY_BENCH_REGISTRY_WATCHERS ?? 500);
const ONLY = process.env.ORRERY_BENCH_REGISTRY_ONLY;
const ROUNDS = Number(process.env.ORRERY_BENCH_REGISTRY_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.ORRERY_BENCH_REGISTRY_WARMUP_SECONDS ?? 5);
const CONCURRENCY = 64;
/** Issue 24's goals for the registry rows (each printed with PASS/MISS). */
const GOALS = { registerRatio: 0.95, queryP99Ms: 5, serverP99Ms: 2 };
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const NS = 'bench';
const SERVICE = 'company.bench.order.order-center.api';

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

/** Runs `op` from `workers` loops for `seconds`; returns completed ops per second. */
async function throughput(workers: number, seconds: number, op: (worker: number, i: number) => Promise<void>): Promise<{ perSec: number; errors: number }> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; performance.now() < until; i++) {
        try {
          await op(w, i);
          done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { perSec: done / seconds, errors };
}

async function latencies(n: number, op: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

/** CPU seconds spent per process while `run` runs: the load generator, the registry, each etcd member. */
async function withCpu<T>(pids: Record<string, number>, run: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuSeconds(pid)]));
  const result = await run();
  const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuSeconds(pid) - before[k]!]));
  return { result, cpu };
}

const cluster = await EtcdCluster.start({ size: 3 });
// The fan-out round opens WATCHERS streams from this one address: above the per-client watch cap's default.
const registry = await spawnRegistry(
  cluster.endpoints(),
  ['--max-watches-per-client', String(WATCHERS + 16), '--write-batching', process.env.ORRERY_BENCH_REGISTRY_WRITE_BATCHING ?? 'on'],
  process.env.ORRERY_BENCH_REGISTRY_NODE_ARGS?.split(' ').filter(Boolean),
);
const pool = new Pool(registry.httpUrl, { connections: CONCURRENCY, pipelining: 1 });
const raw = new Etcd3({ hosts: cluster.endpoints(), grpcOptions: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 } });
/** A reference only (the baseline is `raw`): the same calls on one connection to the leader. */
const rawToLeader = new Etcd3({ hosts: cluster.member(await cluster.leader()).clientURL });

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await pool.request({ method: 'POST', path, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const json = (await res.body.json()) as { code: string; message: string; data: Record<string, unknown> };
  if (json.code !== 'ok') throw new Error(`${json.code}: ${json.message}`);
  return json.data;
}
async function get(path: string): Promise<Record<string, unknown>> {
  const res = await pool.request({ method: 'GET', path });
  const json = (await res.body.json()) as { code: string; message: string; data: Record<string, unknown> };
  if (json.code !== 'ok') throw new Error(`${json.code}: ${json.message}`);
  return json.data;
}

const body = (n: number, service = SERVICE, ns = NS) => ({
  namespace: ns,
  service,
  instanceId: `inst-${n}`,
  zone: `az${n % 3}`,
  labels: { tier: n % 100 === 0 ? 'gold' : 'std', version: 'v2' },
  endpoints: [
    { name: 'http', protocol: 'http', host: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, port: 8080 },
    { name: 'metrics', protocol: 'http', host: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, port: 9090, path: '/metrics' },
  ],
  leaseTtlSeconds: 600,
});

/** Cumulative buckets of the registry's request-duration histogram for the instances route. */
async function instancesHistogram(): Promise<Array<{ le: string; n: number }>> {
  const text = await (await fetch(`${registry.httpUrl}/metrics`)).text();
  return [...text.matchAll(/orrery_registry_request_duration_seconds_bucket\{le="([^"]+)",route="instances"\} (\d+)/g)].map((m) => ({ le: m[1]!, n: Number(m[2]) }));
}

const rows: Array<[string, string, string]> = [];
const NAN = Number.NaN;
/** Each row's figures; NaN for phases a partial run skipped. */
const results = { rawLeasePut: NAN, rawLeasePutLeader: NAN, rawPut: NAN, register: NAN, heartbeat: NAN, queryP50: NAN, queryP99: NAN, rawGetP99: NAN, rawRangeP99: NAN, fanoutMedian: NAN };
const value = Buffer.from(JSON.stringify(body(1)));
let rawSeq = 0;
/** The baseline operation: the two etcd calls a register makes, straight from this process. */
const rawLeasePut = (client: Etcd3) => async (): Promise<void> => {
  const g = await client.leaseClient.leaseGrant({ TTL: 600 });
  await client.kv.put({ key: Buffer.from(`/bench-raw/lp/${rawSeq++}`), value, lease: g.ID });
};
/** Instance ids in NS, the query population (ids wrap: past INSTANCES a register is a re-register). */
let next = 0;
const register = async (): Promise<void> => {
  await post('/api/v1/registry/register', body(next++ % INSTANCES));
};
/** Always a new instance, outside NS: warm-ups and the register-only rounds. */
let spare = 0;
const registerFresh = async (): Promise<void> => {
  await post('/api/v1/registry/register', body(spare++, SERVICE, 'spare'));
};

const pids: Record<string, number> = { bench: process.pid, registry: registry.child.pid! };
for (const m of cluster.members) pids[m.name] = m.process!.pid!;
const cpuPerOp = (cpu: Record<string, number>, ops: number) =>
  (Object.values(cpu).reduce((a, b) => a + b, 0) * 1e6) / Math.max(1, ops);
const cpuBreakdown = (cpu: Record<string, number>, ops: number) =>
  Object.entries(cpu)
    .map(([k, s]) => `${k} ${fmt((s * 1e6) / Math.max(1, ops), 0)}`)
    .join(', ') + ` | total ${fmt(cpuPerOp(cpu, ops), 0)} µs/op`;

/**
 * Both sides run unmeasured for WARMUP_SECONDS first. A fresh registry process spends its first
 * 3-5 s of registers at about twice the CPU per register it needs once V8 has optimised the
 * path (measured: ~1.6 ms, then 0.65-0.8 ms): without this the phase measures JIT warm-up more
 * than the registry. The baseline gets the same warm-up. Registers are of new instances, as
 * the baseline's keys are new: a re-registration also revokes the old lease, a third etcd call.
 */
async function warm(op: () => Promise<void>): Promise<void> {
  if (WARMUP_SECONDS > 0) await throughput(CONCURRENCY, WARMUP_SECONDS, op);
}

/** Baseline and register in alternating rounds with CPU per operation; nothing else. */
async function registerOnly(): Promise<void> {
  const ratios: number[] = [];
  const leaderRatios: number[] = [];
  await warm(rawLeasePut(raw));
  await warm(registerFresh);
  for (let round = 0; round < ROUNDS; round++) {
    const base = await withCpu(pids, () => throughput(CONCURRENCY, SECONDS, rawLeasePut(raw)));
    const pinned = await withCpu(pids, () => throughput(CONCURRENCY, SECONDS, rawLeasePut(rawToLeader)));
    const regStart = process.hrtime.bigint() / 1000n;
    const reg = await withCpu(pids, () => throughput(CONCURRENCY, SECONDS, registerFresh));
    const ratio = reg.result.perSec / base.result.perSec;
    ratios.push(ratio);
    leaderRatios.push(reg.result.perSec / pinned.result.perSec);
    console.log(
      `round ${round + 1}: raw lease+put ${fmt(base.result.perSec, 0)} /s, to the leader only ${fmt(pinned.result.perSec, 0)} /s; register ${fmt(reg.result.perSec, 0)} /s; ratio ${fmt(ratio, 2)}× (errors ${base.result.errors}/${pinned.result.errors}/${reg.result.errors})`,
    );
    // Monotonic µs, the clock of V8's CPU profiles: a registry profile can be cut to this phase.
    console.error(`  register phase monotonic µs ${regStart}..${process.hrtime.bigint() / 1000n}`);
    console.log(`  raw CPU µs/op:          ${cpuBreakdown(base.cpu, base.result.perSec * SECONDS)}`);
    console.log(`  raw to leader CPU µs/op: ${cpuBreakdown(pinned.cpu, pinned.result.perSec * SECONDS)}`);
    console.log(`  register CPU µs/op:     ${cpuBreakdown(reg.cpu, reg.result.perSec * SECONDS)}`);
  }
  await raw.kv.deleteRange({ key: Buffer.from('/bench-raw/'), range_end: Buffer.from('/bench-raw0') });
  const median = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 50);
  console.log(
    `\nregister / raw lease+put: ${ratios.map((r) => fmt(r, 2)).join(', ')}; median ${fmt(median(ratios), 2)}×  (goal ≥ ${GOALS.registerRatio}: ${verdict(median(ratios) >= GOALS.registerRatio)}; ${ratios.filter((r) => r >= GOALS.registerRatio).length}/${ratios.length} rounds meet it)`,
  );
  console.log(`register / raw lease+put to the leader only: ${leaderRatios.map((r) => fmt(r, 2)).join(', ')}; median ${fmt(median(leaderRatios), 2)}×  (reference)`);
}

/** Baseline, register and heartbeat throughput. */
async function writePhases(): Promise<void> {
  // Baseline: raw etcd3 from this process, same concurrency.
  await warm(rawLeasePut(raw));
  const base = await withCpu(pids, () => throughput(CONCURRENCY, SECONDS, rawLeasePut(raw)));
  results.rawLeasePut = base.result.perSec;
  rows.push(['raw etcd3 lease-grant + put (64 concurrent)', `${fmt(base.result.perSec, 0)} /s`, `baseline; CPU ${fmt(cpuPerOp(base.cpu, base.result.perSec * SECONDS), 0)} µs/op (all processes)`]);
  const pinned = await throughput(CONCURRENCY, SECONDS, rawLeasePut(rawToLeader));
  results.rawLeasePutLeader = pinned.perSec;
  rows.push(['raw etcd3 lease-grant + put, leader only (64 concurrent)', `${fmt(pinned.perSec, 0)} /s`, 'reference: one connection to the leader, as the registry writes']);
  const rawPut = await throughput(CONCURRENCY, SECONDS, async () => {
    await raw.kv.put({ key: Buffer.from(`/bench-raw/p/${rawSeq++ % 3200}`), value });
  });
  results.rawPut = rawPut.perSec;
  rows.push(['raw etcd3 put (64 concurrent)', `${fmt(rawPut.perSec, 0)} /s`, 'reference']);
  await raw.kv.deleteRange({ key: Buffer.from('/bench-raw/'), range_end: Buffer.from('/bench-raw0') });

  // Registry: register, then heartbeat, 64 concurrent HTTP clients.
  await warm(registerFresh);
  const regRun = await withCpu(pids, () => throughput(CONCURRENCY, SECONDS, register));
  const reg = regRun.result;
  console.error(`raw lease+put CPU µs/op: ${cpuBreakdown(base.cpu, base.result.perSec * SECONDS)}`);
  console.error(`register CPU µs/op:      ${cpuBreakdown(regRun.cpu, reg.perSec * SECONDS)}`);
  results.register = reg.perSec;
  rows.push([
    'registry register (64 concurrent)',
    `${fmt(reg.perSec, 0)} /s`,
    `${fmt(reg.perSec / base.result.perSec, 2)}× raw lease+put (goal ≥ ${GOALS.registerRatio}×); CPU ${fmt(cpuPerOp(regRun.cpu, reg.perSec * SECONDS), 0)} µs/op; errors ${reg.errors}`,
  ]);
  const registered = Math.min(next, INSTANCES);
  const hb = await throughput(CONCURRENCY, SECONDS, async (w, i) => {
    await post('/api/v1/registry/heartbeat', { namespace: NS, service: SERVICE, instanceId: `inst-${(w * 997 + i) % registered}` });
  });
  results.heartbeat = hb.perSec;
  rows.push(['registry heartbeat (64 concurrent)', `${fmt(hb.perSec, 0)} /s`, `${fmt(hb.perSec / base.result.perSec, 2)}× raw lease+put; errors ${hb.errors}`]);

}

/** Fills the query population, then the query latency against its raw-read baseline. */
async function queryPhases(): Promise<void> {
  // Fill up to INSTANCES for the query phase.
  const fillStart = performance.now();
  let fill = next;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let n = fill++; n < INSTANCES; n = fill++) await post('/api/v1/registry/register', body(n));
    }),
  );
  console.error(`filled to ${INSTANCES} instances in ${fmt((performance.now() - fillStart) / 1000)} s`);

  const qs = `/api/v1/registry/instances?namespace=${NS}&service=${SERVICE}&selector=tier=gold`;
  const check = (await get(qs)) as { instances: unknown[] };
  if (check.instances.length !== Math.ceil(INSTANCES / 100)) throw new Error(`selector matched ${check.instances.length}, expected ${INSTANCES / 100}`);
  for (let i = 0; i < 50; i++) await get(qs);
  // The query's floor is one linearizable etcd read (its barrier). Queries and raw reads from
  // this process run in alternating blocks of 100, so both face the same load on the machine.
  const barrierKey = Buffer.from('/orrery/registry/barrier');
  const serverBefore = await instancesHistogram();
  const q: number[] = [];
  const rawGet: number[] = [];
  const rawGetLeader: number[] = [];
  const queryStart = process.hrtime.bigint() / 1000n;
  // The registry's own CPU over the query blocks only (/proc: 10 ms ticks, summed over 10 blocks).
  let registryCpuSeconds = 0;
  for (let block = 0; block < 10; block++) {
    const cpuBefore = processCpuSeconds(pids.registry!);
    q.push(...(await latencies(100, async () => void (await get(qs)))));
    registryCpuSeconds += processCpuSeconds(pids.registry!) - cpuBefore;
    rawGet.push(...(await latencies(100, async () => void (await raw.kv.range({ key: barrierKey, count_only: true })))));
    rawGetLeader.push(...(await latencies(100, async () => void (await rawToLeader.kv.range({ key: barrierKey, count_only: true })))));
  }
  console.error(`  query phase monotonic µs ${queryStart}..${process.hrtime.bigint() / 1000n}`);
  for (const xs of [q, rawGet, rawGetLeader]) xs.sort((a, b) => a - b);
  const serverAfter = await instancesHistogram();
  results.queryP50 = pct(q, 50);
  results.queryP99 = pct(q, 99);
  results.rawGetP99 = pct(rawGet, 99);
  rows.push([
    `registry instances query, ${INSTANCES} registered, selector → ${INSTANCES / 100} (1 client)`,
    `p50 ${fmt(pct(q, 50), 2)} ms, p99 ${fmt(pct(q, 99), 2)} ms`,
    `goal p99 < ${GOALS.queryP99Ms} ms: ${verdict(pct(q, 99) < GOALS.queryP99Ms)}; p99 ${fmt(pct(q, 99) / pct(rawGet, 99), 2)}× the raw read's; registry CPU ${fmt((registryCpuSeconds * 1e6) / q.length, 0)} µs/query`,
  ]);
  // Server-side view of the same queries (the registry's own histogram, only these queries):
  // separates the registry's work from scheduling noise on a loaded machine.
  const server = serverBefore.map((b, i) => ({ le: b.le, n: serverAfter[i]!.n - b.n }));
  const total = server.at(-1)?.n ?? 0;
  const within = (share: number) => Number(server.find((b) => b.n >= share * total)?.le ?? Number.NaN) * 1000;
  const serverP99 = within(0.99);
  rows.push([
    '  server-side (registry histogram, same queries)',
    `p50 ≤ ${within(0.5)} ms, p99 ≤ ${serverP99} ms`,
    `bucket upper bounds; goal p99 < ${GOALS.serverP99Ms} ms: ${verdict(serverP99 <= GOALS.serverP99Ms)} (${fmt((100 * (server.find((b) => Number(b.le) >= GOALS.serverP99Ms / 1000)?.n ?? 0)) / Math.max(1, total), 1)} % within ${GOALS.serverP99Ms} ms)`,
  ]);
  rows.push(['  baseline: raw etcd3 linearizable 1-key read (the barrier), same blocks', `p50 ${fmt(pct(rawGet, 50), 2)} ms, p99 ${fmt(pct(rawGet, 99), 2)} ms`, 'from this process, client over all members']);
  rows.push(['  reference: the same read on one connection to the leader', `p50 ${fmt(pct(rawGetLeader, 50), 2)} ms, p99 ${fmt(pct(rawGetLeader, 99), 2)} ms`, 'as the registry reads its barrier']);
  const concRun = await withCpu(pids, () =>
    throughput(16, SECONDS, async () => {
      await get(qs);
    }),
  );
  const qConc = concRun.result;
  rows.push(['registry instances query (16 concurrent)', `${fmt(qConc.perSec, 0)} /s`, `shared read barriers; CPU µs/query: ${cpuBreakdown(concRun.cpu, qConc.perSec * SECONDS)}`]);

  // The full range a scan-per-query design would pay.
  const prefix = '/orrery/registry/i/';
  const rawRange = await latencies(30, async () => {
    const res = await raw.kv.range({ key: Buffer.from(prefix), range_end: Buffer.from('/orrery/registry/i0') });
    let gold = 0;
    for (const kv of res.kvs) if ((JSON.parse(kv.value.toString()) as { labels: { tier: string } }).labels.tier === 'gold') gold++;
    if (gold === 0) throw new Error('raw range found nothing');
  });
  results.rawRangeP99 = pct(rawRange, 99);
  rows.push([
    `raw etcd3 range of all ${INSTANCES} + JSON filter (scan per query)`,
    `p50 ${fmt(pct(rawRange, 50), 1)} ms, p99 ${fmt(pct(rawRange, 99), 1)} ms`,
    `registry p50 is ${fmt(pct(rawRange, 50) / pct(q, 50), 0)}× faster`,
  ]);

}

async function fanOut(): Promise<void> {
  // Fan-out: WATCHERS SSE streams on one service; time until every one has the upsert.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const watchService = 'company.bench.watch.fanout.api';
  const arrivals: Array<Map<string, number>> = [];
  const streams: Array<() => void> = [];
  const url = new URL(`${registry.httpUrl}/api/v1/registry/watch?namespace=fan&service=${watchService}`);
  await Promise.all(
    Array.from({ length: WATCHERS }, (_, w) =>
      new Promise<void>((resolve, reject) => {
        const seen = new Map<string, number>();
        arrivals[w] = seen;
        const req = httpRequest(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
          res.setEncoding('utf8');
          let buf = '';
          res.on('data', (chunk: string) => {
            buf += chunk;
            let i;
            while ((i = buf.indexOf('\n\n')) >= 0) {
              const frame = buf.slice(0, i);
              buf = buf.slice(i + 2);
              if (frame.startsWith('event: snapshot')) resolve();
              const m = /"instanceId":"([^"]+)"/.exec(frame);
              if (frame.startsWith('event: upsert') && m) seen.set(m[1]!, performance.now());
            }
          });
        });
        req.on('error', reject);
        req.end();
        streams.push(() => req.destroy());
      }),
    ),
  );
  const fan: number[] = [];
  const fanFromAck: number[] = [];
  for (let round = 0; round < 5; round++) {
    const id = `fan-${round}`;
    const t0 = performance.now();
    await post('/api/v1/registry/register', { ...body(round, watchService, 'fan'), instanceId: id });
    const tAck = performance.now();
    const deadline = performance.now() + 10_000;
    while (arrivals.some((m) => !m.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    const missing = arrivals.filter((m) => !m.has(id)).length;
    if (missing > 0) throw new Error(`${missing} watchers never got ${id}`);
    const last = Math.max(...arrivals.map((m) => m.get(id)!));
    fan.push(last - t0);
    fanFromAck.push(last - tAck);
  }
  fan.sort((a, b) => a - b);
  fanFromAck.sort((a, b) => a - b);
  results.fanoutMedian = pct(fan, 50);
  rows.push([
    `one change → all ${WATCHERS} SSE watchers (5 rounds, from register call)`,
    `median ${fmt(pct(fan, 50), 1)} ms, max ${fmt(fan.at(-1)!, 1)} ms`,
    `from write ack: median ${fmt(pct(fanFromAck, 50), 1)} ms; target < 100 ms`,
  ]);
  for (const s of streams) s();
  agent.destroy();
}

function report(): void {
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`\nregistry benchmark: ${cluster.members.length}-member etcd on loopback, ${SECONDS} s phases, Node ${process.version}`);
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
  console.log('\nratios:');
  // Phases a partial run (ORRERY_BENCH_REGISTRY_ONLY=query) skipped print nothing.
  if (!Number.isNaN(results.register)) {
    console.log(
    `  register / raw lease+put     ${fmt(results.register / results.rawLeasePut, 2)}×  (goal ≥ ${GOALS.registerRatio}: ${verdict(results.register / results.rawLeasePut >= GOALS.registerRatio)}; ${fmt(results.register / results.rawLeasePutLeader, 2)}× the leader-only raw client)`,
  );
    console.log(`  heartbeat / raw lease+put    ${fmt(results.heartbeat / results.rawLeasePut, 2)}×`);
  }
  console.log(`  query p99 / raw 1-key read p99 ${fmt(results.queryP99 / results.rawGetP99, 2)}×  (query p99 ${fmt(results.queryP99, 2)} ms, goal < ${GOALS.queryP99Ms} ms: ${verdict(results.queryP99 < GOALS.queryP99Ms)})`);
  console.log(`  raw range p99 / query p99    ${fmt(results.rawRangeP99 / results.queryP99, 1)}×`);
  if (!Number.isNaN(results.fanoutMedian)) console.log(`  fan-out median / 100 ms      ${fmt(results.fanoutMedian / 100, 2)}   (≤ 1 meets the target)`);
}

try {
  if (ONLY === 'register') await registerOnly();
  else if (ONLY === 'query') {
    await queryPhases();
    report();
  } else {
    await writePhases();
    await queryPhases();
    await fanOut();
    report();
  }
} finally {
  await pool.close();
  raw.close();
  rawToLeader.close();
  await registry.stop();
  await cluster.close();
}

/**
 * bench/statesync: one sync cycle over 10 000 entities — SCAN + batched MGET pull and pipelined SETEX
 * push (the statesync manager) against a naive loop of one GET / one SETEX per key, same Redis, same run.
 *
 *   npx tsx bench/statesync/index.ts
 *   ORRERY_BENCH_STATESYNC_ENTITIES=50000 ORRERY_BENCH_STATESYNC_ROUNDS=5 npx tsx bench/statesync/index.ts
 *
 * Round trips are counted on the client: every command awaited on its own is one, a pipeline's exec()
 * is one whatever it carries. Medians over the rounds.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createStateSync, entityKey, namespaceScanPattern, pullNamespace, pushNamespace, type Syncable } from '@orrery/statesync';

const N = Number(process.env.ORRERY_BENCH_STATESYNC_ENTITIES ?? 10_000);
const ROUNDS = Number(process.env.ORRERY_BENCH_STATESYNC_ROUNDS ?? 3);
const URL = process.env.ORRERY_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = 'bench-entities';
const TTL = 120;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const enc = new TextEncoder();

/** Counts round trips and commands by wrapping the client's methods the benchmark uses. */
function counted(redis: Redis): { trips: () => number; commands: () => number; reset: () => void } {
  let trips = 0;
  let commands = 0;
  const r = redis as unknown as Record<string, unknown>;
  for (const name of ['scan', 'mgetBuffer', 'getBuffer', 'setex', 'del']) {
    const original = (r[name] as (...a: unknown[]) => unknown).bind(redis);
    r[name] = (...args: unknown[]) => {
      trips++;
      commands++;
      return original(...args);
    };
  }
  const makePipeline = redis.pipeline.bind(redis);
  r.pipeline = (...args: Parameters<typeof redis.pipeline>) => {
    const p = makePipeline(...args);
    const exec = p.exec.bind(p);
    p.exec = (...a: Parameters<typeof p.exec>) => {
      trips++;
      commands += p.length;
      return exec(...a);
    };
    return p;
  };
  return { trips: () => trips, commands: () => commands, reset: () => ((trips = 0), (commands = 0)) };
}

function table(entities: number): Syncable & { applied: number } {
  const snapshot = new Map<string, Uint8Array>();
  for (let i = 0; i < entities; i++) {
    snapshot.set(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8080`, enc.encode(JSON.stringify({ until: 1_900_000_000_000 + i, at: 1_800_000_000_000 })));
  }
  const t = {
    namespace: NS,
    applied: 0,
    snapshot: () => snapshot,
    applyRemote: () => {
      t.applied++;
    },
  };
  return t;
}

interface Sample {
  ms: number;
  trips: number;
  commands: number;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(counter: ReturnType<typeof counted>, work: () => Promise<void>): Promise<Sample> {
  counter.reset();
  const t0 = performance.now();
  await work();
  return { ms: performance.now() - t0, trips: counter.trips(), commands: counter.commands() };
}

async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(keys);
  } while (cursor !== '0');
}

async function main(): Promise<void> {
  const redis = new Redis(URL);
  const counter = counted(redis);
  const samples: Record<string, Sample[]> = { batchedPush: [], push200: [], naivePush: [], batchedPull: [], naivePull: [], cycle: [] };
  const prefixes: string[] = [];
  try {
    // Round 0 warms up the JIT and the connection and is not reported.
    for (let round = 0; round <= ROUNDS; round++) {
      if (round === 1) for (const k of Object.keys(samples)) samples[k] = [];
      const src = table(N);
      const settings = { scanCount: 500, mgetBatchSize: 200, logger: quiet };

      // Batched: the statesync push and pull.
      const batched = `orrery-bench-statesync-${randomUUID().slice(0, 8)}`;
      prefixes.push(batched);
      samples.batchedPush!.push(
        await measure(counter, async () => {
          await pushNamespace(redis, src, { ...settings, keyPrefix: batched, recordTtlSeconds: TTL, setexChunkSize: 25, warnSnapshotEntries: Infinity, warnAverageEntryBytes: Infinity });
        }),
      );
      const wide = `orrery-bench-statesync-${randomUUID().slice(0, 8)}`;
      prefixes.push(wide);
      samples.push200!.push(
        await measure(counter, async () => {
          await pushNamespace(redis, src, { ...settings, keyPrefix: wide, recordTtlSeconds: TTL, setexChunkSize: 200, warnSnapshotEntries: Infinity, warnAverageEntryBytes: Infinity });
        }),
      );
      const sink = table(0);
      samples.batchedPull!.push(await measure(counter, async () => void (await pullNamespace(redis, sink, { ...settings, keyPrefix: batched }))));
      if (sink.applied !== N) throw new Error(`batched pull applied ${sink.applied}, expected ${N}`);

      // Naive: one SETEX per key, then SCAN (same enumeration) and one GET per key.
      const naive = `orrery-bench-statesync-${randomUUID().slice(0, 8)}`;
      prefixes.push(naive);
      samples.naivePush!.push(
        await measure(counter, async () => {
          for (const [id, bytes] of src.snapshot() as Map<string, Uint8Array>) await redis.setex(entityKey(naive, NS, id), TTL, Buffer.from(bytes));
        }),
      );
      const naiveSink = table(0);
      samples.naivePull!.push(
        await measure(counter, async () => {
          let cursor = '0';
          const stem = entityKey(naive, NS, '');
          do {
            const [next, keys] = await redis.scan(cursor, 'MATCH', namespaceScanPattern(naive, NS), 'COUNT', 500);
            cursor = next;
            for (const key of keys) {
              const value = await redis.getBuffer(key);
              if (value) void naiveSink.applyRemote(key.slice(stem.length), value);
            }
          } while (cursor !== '0');
        }),
      );
      if (naiveSink.applied < N) throw new Error(`naive pull applied ${naiveSink.applied}, expected ${N}`);

      // A whole manager cycle (pull of the 10 000 existing records, then the full push).
      const sync = createStateSync(redis, { keyPrefix: batched, logger: quiet, env: {}, warnSnapshotEntries: Infinity });
      sync.register(table(N));
      samples.cycle!.push(await measure(counter, async () => void (await sync.syncOnce())));
      await sync.stop();
      for (const p of prefixes.splice(0)) await dropPrefix(redis, p);
    }
  } finally {
    for (const p of prefixes) await dropPrefix(redis, p);
    redis.disconnect();
  }

  const row = (name: string, s: Sample[]): string => {
    const ms = median(s.map((x) => x.ms));
    return `${name.padEnd(34)} ${ms.toFixed(1).padStart(9)} ${String(median(s.map((x) => x.trips))).padStart(12)} ${String(median(s.map((x) => x.commands))).padStart(10)}`;
  };
  console.log(`statesync: ${N} entities, ${ROUNDS} round(s) after 1 warm-up, Redis ${URL} (medians; client-counted round trips)`);
  console.log(`${'phase'.padEnd(34)} ${'ms'.padStart(9)} ${'round trips'.padStart(12)} ${'commands'.padStart(10)}`);
  console.log(row('push: pipelined SETEX (chunks 25)', samples.batchedPush!));
  console.log(row('push: pipelined SETEX (chunks 200)', samples.push200!));
  console.log(row('push: naive SETEX per key', samples.naivePush!));
  console.log(row('pull: SCAN + MGET (batches 200)', samples.batchedPull!));
  console.log(row('pull: SCAN + GET per key', samples.naivePull!));
  console.log(row('one manager cycle (pull + push)', samples.cycle!));
  const ratio = (a: Sample[], b: Sample[], f: (s: Sample) => number): string => (median(a.map(f)) / median(b.map(f))).toFixed(1);
  console.log('');
  console.log(`push speed-up (naive ms / batched ms):         ${ratio(samples.naivePush!, samples.batchedPush!, (s) => s.ms)}x`);
  console.log(`push round-trip ratio (naive / batched):       ${ratio(samples.naivePush!, samples.batchedPush!, (s) => s.trips)}x`);
  console.log(`pull speed-up (naive ms / batched ms):         ${ratio(samples.naivePull!, samples.batchedPull!, (s) => s.ms)}x`);
  console.log(`pull round-trip ratio (naive / batched):       ${ratio(samples.naivePull!, samples.batchedPull!, (s) => s.trips)}x`);
  const naiveCycle = samples.naivePush!.map((s, i) => ({ ms: s.ms + samples.naivePull![i]!.ms, trips: s.trips + samples.naivePull![i]!.trips, commands: 0 }));
  console.log(`cycle speed-up (naive pull+push / manager):    ${ratio(naiveCycle, samples.cycle!, (s) => s.ms)}x`);
}

await main();

/**
 * Hot-key summary cost per request (issue 22, part 3): DecayedTopK.observe — what statesvc adds to
 * every keyed state call and the router to every sticky request — beside its baseline in the same
 * run, an exact `Map<string, number>` increment (the cheapest per-key count, unbounded memory).
 * Two streams: Zipf(1.1) over 100 000 keys (hot keys stay counted: the common case) and 1 000 000
 * distinct keys (every call replaces the smallest counter: the worst case). Prints ns per call,
 * the ratio to the baseline, and the memory each holds at the end (keys held).
 * BENCH_HOT_KEYS_EVENTS (default 2 000 000) sets the stream length; about 15 s.
 */
import { DecayedTopK, HOT_KEYS_DEFAULT_CAPACITY, HOT_KEYS_DEFAULT_HALF_LIFE_MS } from '../../packages/spec/src/index.ts';

const EVENTS = Number(process.env.BENCH_HOT_KEYS_EVENTS ?? 2_000_000);
const ROUNDS = 3;

function zipfStream(n: number, universe: number, s: number): string[] {
  const cdf = new Float64Array(universe);
  let sum = 0;
  for (let r = 1; r <= universe; r++) cdf[r - 1] = sum += 1 / Math.pow(r, s);
  // mulberry32, seeded: the same stream every run.
  let a = 22;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const names = Array.from({ length: universe }, (_, i) => `user-${i}`);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const u = random() * sum;
    let lo = 0;
    let hi = universe - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    out[i] = names[lo]!;
  }
  return out;
}

function timeIt(run: () => void): number {
  const t0 = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t0) / EVENTS;
}

function measure(name: string, stream: string[]): void {
  let best = { summary: Infinity, map: Infinity };
  let held = { summary: 0, map: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so a burst of other load on the machine hits both alike.
    const map = new Map<string, number>();
    const mapNs = timeIt(() => {
      for (let i = 0; i < stream.length; i++) map.set(stream[i]!, (map.get(stream[i]!) ?? 0) + 1);
    });
    const t = new DecayedTopK({ capacity: HOT_KEYS_DEFAULT_CAPACITY, halfLifeMs: HOT_KEYS_DEFAULT_HALF_LIFE_MS });
    const summaryNs = timeIt(() => {
      // 10 000 requests per simulated second: the decay weight changes as in production.
      for (let i = 0; i < stream.length; i++) t.observe(stream[i]!, i / 10);
    });
    best = { summary: Math.min(best.summary, summaryNs), map: Math.min(best.map, mapNs) };
    held = { summary: t.memory().tracked, map: map.size };
  }
  console.log(
    `${name.padEnd(34)} DecayedTopK ${best.summary.toFixed(0).padStart(4)} ns/call (${held.summary} keys held)   exact Map ${best.map.toFixed(0).padStart(4)} ns/call (${held.map} keys held)   ratio ${(best.summary / best.map).toFixed(2)}`,
  );
}

console.log(`hot-key summary vs exact Map counting, ${EVENTS} calls per run, best of ${ROUNDS}`);
measure('Zipf 1.1 over 100 000 keys', zipfStream(EVENTS, 100_000, 1.1));
measure('1 000 000+ distinct keys', Array.from({ length: EVENTS }, (_, i) => `distinct-${i}`));

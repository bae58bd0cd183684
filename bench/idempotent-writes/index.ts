/**
 * bench/idempotent-writes: what `Idempotency-Key` costs a write. PUT of 256-byte values through
 * one orrery-statesvc per driver (memory, memory journaled with --data-dir, postgres), each
 * request with a fresh key, beside the baseline measured in the same run against the same
 * process: the same PUT without the header. Interleaved slices, so load from other work on the
 * machine drifts onto both sides alike. Prints ops/s, p50, p99 and the ratios.
 * BENCH_SECONDS (default 1.6) sets the measured window per cell.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '@orrery/db';
import { closedLoopSamples, httpLoad, merge, type LoadResult, type Samples } from '../statesvc/load.ts';
import { benchKeyspace } from '../statesvc/bench-keyspace.ts';
import { comparisonCells, fmt } from '../statesvc/comparison-cells.ts';
import { startProcess } from '../statesvc/start-process.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1.6);
const WARMUP_MS = 250;
const SLICES = 2;
const KEYS = 1000;
const VALUE = JSON.stringify('v'.repeat(254)); // 256 bytes of JSON

const stop = (p: ChildProcess) => new Promise<void>((r) => { p.once('exit', () => r()); p.kill('SIGTERM'); });

interface Row { driver: string; conns: number; keyed: LoadResult; plain: LoadResult }

async function main() {
  const ks = benchKeyspace('orrery-bench-idem-', 0x43);
  const { dir, bin, common } = ks;
  const headers = { ...ks.headers, 'content-type': 'application/json' };
  const tdb = await createTestDatabase('orrery_bench_idem');
  const rows: Row[] = [];
  const started = Date.now();
  let seq = 0;
  try {
    const drivers: Array<[string, string[], number[]]> = [
      ['memory', ['--driver', 'memory'], [1, 32]],
      ['memory+journal', ['--driver', 'memory', '--data-dir', join(dir, 'data')], [1, 32]],
      ['postgres', ['--driver', 'postgres', '--database-url', tdb.url, '--pool-size', '32'], [1, 8, 32]],
    ];
    for (const [driver, args, connsList] of drivers) {
      const svc = await startProcess([bin, ...common, ...args]);
      // The first pass (c=32, not recorded) warms the JIT and the connection pools.
      for (const [pass, conns] of [[0, 32], ...connsList.map((c) => [1, c])] as Array<[number, number]>) {
        const client = httpLoad(svc.url, conns);
        const plain = (i: number) => client.request('PUT', `/v1/state/k${i % KEYS}`, headers, VALUE);
        // A fresh key per request: every one is a first write that stores its outcome.
        const keyed = (i: number) => client.request('PUT', `/v1/state/k${i % KEYS}`, { ...headers, 'idempotency-key': `req-${++seq}` }, VALUE);
        const a: Samples[] = [];
        const b: Samples[] = [];
        for (let s = 0; s < SLICES; s++) {
          a.push(await closedLoopSamples(conns, WARMUP_MS, (SECONDS * 1000) / SLICES, keyed));
          b.push(await closedLoopSamples(conns, WARMUP_MS, (SECONDS * 1000) / SLICES, plain));
        }
        await client.close();
        if (pass === 0) continue;
        const row = { driver, conns, keyed: merge(a), plain: merge(b) };
        rows.push(row);
        console.error(`${driver} c=${conns}: keyed ${fmt(row.keyed.opsPerSec)} ops/s vs plain ${fmt(row.plain.opsPerSec)}`);
      }
      await stop(svc.proc);
    }
  } finally {
    await tdb.drop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nbench/idempotent-writes — PUT of 256-byte values to ${KEYS} keys, ${SECONDS}s per side per cell (${SLICES} interleaved slices); baseline: the same PUT without Idempotency-Key to the same process; run took ${((Date.now() - started) / 1000).toFixed(0)}s`);
  console.log('driver           conns | keyed ops/s  p50ms  p99ms | plain ops/s  p50ms  p99ms | thr ratio  p99 ratio  errors');
  for (const r of rows) {
    console.log(
      [
        r.driver.padEnd(16),
        String(r.conns).padStart(5),
        '|',
        ...comparisonCells(r.keyed, r.plain, { measured: [11, 6, 6], base: [11, 6, 6] }),
      ].join(' '),
    );
  }
}

await main();

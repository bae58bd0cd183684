/**
 * What recording the change feed costs a Postgres write (migration 0005): every write to a
 * keyspace now takes the keyspace's head row lock until it commits, so writes to one keyspace
 * commit one at a time. Measured at the SQL level, in one run, interleaved: `orrery_state_set` as
 * migration 0005 has it against a copy of migration 0004's (no feed), created in the bench
 * database under another name; overwrites of 1000 keys of 256 bytes, closed loop, one keyspace and
 * spread over 8 keyspaces. BENCH_SECONDS (default 1.6) per side per cell.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { connect, createTestDatabase, migrate } from '@orrery/db';
import { closedLoopSamples, merge, type LoadResult, type Samples } from './load.ts';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1.6);
const SLICES = 2;
const KEYS = 1000;
const VALUE = JSON.stringify('v'.repeat(254));

type Op = (i: number) => Promise<boolean>;

async function interleaved(conns: number, a: Op, b: Op): Promise<{ feed: LoadResult; before: LoadResult }> {
  const x: Samples[] = [];
  const y: Samples[] = [];
  for (let i = 0; i < SLICES; i++) {
    x.push(await closedLoopSamples(conns, 200, (SECONDS * 1000) / SLICES, a));
    y.push(await closedLoopSamples(conns, 200, (SECONDS * 1000) / SLICES, b));
  }
  return { feed: merge(x), before: merge(y) };
}

export async function runChangeFeedWriteCost(): Promise<void> {
  const tdb = await createTestDatabase('orrery_bench');
  const conn = connect({ url: tdb.url, max: 2 });
  const rows: Array<{ keyspaces: number; conns: number; feed: LoadResult; before: LoadResult }> = [];
  try {
    await migrate(conn);
    await conn.close();
    const sql = postgres(tdb.url, { max: 64, onnotice: () => {} });
    // Migration 0004's orrery_state_set, as it was before the feed, under another name.
    const v4 = readFileSync(join(here, '..', '..', 'packages', 'db', 'drizzle', '0004_state_set_no_lock_before_meta.sql'), 'utf8').replace('CREATE OR REPLACE FUNCTION orrery_state_set(', 'CREATE OR REPLACE FUNCTION bench_state_set_0004(');
    await sql.unsafe(v4);
    for (const ks of Array.from({ length: 8 }, (_, i) => `ks${i}`)) {
      for (let k = 0; k < KEYS; k += 100) {
        await Promise.all(Array.from({ length: 100 }, (_, j) => sql.unsafe('select orrery_state_set($1, $2, $3, $4, $5, null, null, null, 0, $6)', ['bench', ks, `k${k + j}`, VALUE, 256, Date.now()])));
      }
    }
    const set = (fn: string, keyspaces: number): Op => async (i) => {
      try {
        await sql.unsafe(`select result from ${fn}($1, $2, $3, $4, $5, null, null, null, 0, $6)`, ['bench', `ks${i % keyspaces}`, `k${(i * 7919) % KEYS}`, VALUE, 256, Date.now()], { prepare: true });
        return true;
      } catch {
        return false;
      }
    };
    for (const keyspaces of [1, 8]) {
      for (const conns of [1, 8, 32]) {
        const r = await interleaved(conns, set('orrery_state_set', keyspaces), set('bench_state_set_0004', keyspaces));
        rows.push({ keyspaces, conns, ...r });
        console.error(`keyspaces=${keyspaces} c=${conns}: ${r.feed.opsPerSec.toFixed(0)} ops/s with the feed vs ${r.before.opsPerSec.toFixed(0)} before`);
      }
    }
    await sql.end({ timeout: 5 });
  } finally {
    await tdb.drop();
  }
  console.log(`\nbench/statesvc change feed write cost — overwrites through orrery_state_set with the feed (0005) vs without (0004's), ${SECONDS}s per side per cell, interleaved`);
  console.log('keyspaces conns | feed ops/s  p50ms  p99ms | 0004 ops/s  p50ms  p99ms | thr ratio  p99 ratio');
  for (const r of rows) {
    console.log(
      `${String(r.keyspaces).padStart(9)} ${String(r.conns).padStart(5)} | ${r.feed.opsPerSec.toFixed(0).padStart(10)} ${r.feed.p50Ms.toFixed(2).padStart(6)} ${r.feed.p99Ms.toFixed(2).padStart(6)} | ${r.before.opsPerSec.toFixed(0).padStart(10)} ${r.before.p50Ms.toFixed(2).padStart(6)} ${r.before.p99Ms.toFixed(2).padStart(6)} | ${(r.feed.opsPerSec / r.before.opsPerSec).toFixed(2).padStart(9)} ${(r.feed.p99Ms / r.before.p99Ms).toFixed(2).padStart(10)}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runChangeFeedWriteCost();

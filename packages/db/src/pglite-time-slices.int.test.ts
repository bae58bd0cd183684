/**
 * PGlite's statements settle without giving the event loop a turn; a connection from `connect`
 * must give it one every few milliseconds of statements (pglite-time-slices.ts). Real PGlite.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from './connect.ts';
import { SLICE_MS } from './pglite-time-slices.ts';

/** Runs `statements` awaited one after another; returns how long it took and the loop's turns meanwhile. */
async function chain(conn: Connection, statements: number): Promise<{ ms: number; turns: number; longestGapMs: number }> {
  let turns = 0;
  let stop = false;
  let lastTurn = performance.now();
  let longestGapMs = 0;
  const tick = (): void => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - lastTurn);
    lastTurn = now;
    turns++;
    if (!stop) setImmediate(tick);
  };
  const t0 = performance.now();
  setImmediate(tick);
  for (let i = 0; i < statements; i++) await conn.db.execute(sql`select ${i}::int as n, repeat('x', 2000) as pad`);
  const ms = performance.now() - t0;
  stop = true;
  return { ms, turns, longestGapMs };
}

describe('PGlite time slices', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = connect({ url: '' });
    await conn.db.execute(sql`select 1`);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
  });

  it('a long chain of statements lets the event loop turn, about once per slice', async () => {
    const { ms, turns, longestGapMs } = await chain(conn, 600);
    // Unsliced, a chain settles entirely in microtasks: no turn until it ends.
    expect(turns, `${turns} turns in ${ms.toFixed(0)} ms`).toBeGreaterThan(Math.floor(ms / (SLICE_MS * 20)));
    // A gap is one slice plus one statement; CI machines are loaded, so the bound is loose.
    expect(longestGapMs, `longest gap ${longestGapMs.toFixed(1)} ms in a ${ms.toFixed(0)} ms chain`).toBeLessThan(Math.max(ms / 4, SLICE_MS * 10));
  }, 60_000);
});

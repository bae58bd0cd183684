/**
 * The maxKeys race (docs/specs/quota.md): many concurrent writers at the budget boundary with mixed
 * create / delete / expire churn. Shared by the drivers' race tests.
 */
import fc from 'fast-check';
import { StateStoreError } from './errors.ts';
import { STATE_OWNER, type Scope, type StateDriver } from './types.ts';

export type RaceOp =
  | { op: 'create'; key: number; ttlMs: number; createOnly: boolean }
  | { op: 'delete'; key: number }
  | { op: 'tick'; ms: number };

export const MAX_KEYS = 8;
const KEY_POOL = 20;

export const raceOpArb: fc.Arbitrary<RaceOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('create' as const), key: fc.nat(KEY_POOL - 1), ttlMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8 })), createOnly: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), key: fc.nat(KEY_POOL - 1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 4 }) }) },
);

/** ≥ 32 writers, each a short op sequence, plus keys pre-filled to just under the boundary. */
export const raceScenarioArb: fc.Arbitrary<RaceScenario> = fc.record({
  prefill: fc.integer({ min: MAX_KEYS - 2, max: MAX_KEYS }),
  writers: fc.array(fc.array(raceOpArb, { minLength: 1, maxLength: 5 }), { minLength: 32, maxLength: 40 }),
});

export type RaceScenario = { prefill: number; writers: RaceOp[][] };

export type Writer = (driver: StateDriver, scope: Scope, key: string, value: string, ttlMs: number, createOnly: boolean) => Promise<unknown>;

/** The correct path: the budget check is part of the write. */
export const countedWriter: Writer = (d, s, key, value, ttlMs, createOnly) =>
  d.setCounted(s, key, value, { ttlMs, ifVersion: createOnly ? 0 : undefined }, { maxKeys: MAX_KEYS });

let seq = 0;

/**
 * Runs one scenario and returns the facts the invariant needs: live keys at the end, the
 * `#meta` count and the true number of stored rows (before and after a sweep).
 */
export async function runRace(
  driver: StateDriver,
  clock: { now: number },
  rowCount: (s: Scope) => Promise<number>,
  scenario: RaceScenario,
  writer: Writer = countedWriter,
): Promise<{ live: number; meta: number; rows: number; metaAfterSweep: number; liveAfterSweep: number }> {
  const scope: Scope = { namespace: 'race', owner: STATE_OWNER, keyspace: `r-${process.pid}-${++seq}` };
  for (let i = 0; i < scenario.prefill; i++) await driver.setCounted(scope, `k${KEY_POOL + i}`, '0', { ttlMs: i % 2 ? 3 : 0 }, { maxKeys: MAX_KEYS });
  await Promise.all(
    scenario.writers.map(async (ops, w) => {
      for (const op of ops) {
        try {
          if (op.op === 'tick') clock.now += op.ms;
          else if (op.op === 'delete') await driver.delete(scope, `k${op.key}`);
          else await writer(driver, scope, `k${op.key}`, String(w), op.ttlMs, op.createOnly);
        } catch (err) {
          if (!(err instanceof StateStoreError) || (err.code !== 'quota_keys' && err.code !== 'version_conflict')) throw err;
        }
      }
    }),
  );
  const live = (await driver.usage(scope)).keys;
  const meta = await driver.metaCount(scope);
  const rows = await rowCount(scope);
  await driver.sweepExpired();
  return { live, meta, rows, metaAfterSweep: await driver.metaCount(scope), liveAfterSweep: (await driver.usage(scope)).keys };
}

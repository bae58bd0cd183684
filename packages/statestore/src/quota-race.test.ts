import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryDriver } from './memory-driver.ts';
import { MAX_KEYS, raceScenarioArb, runRace, type Writer } from './quota-race.ts';

/** The negative control of docs/specs/quota.md (AtomicQuota = FALSE): count, yield, then write. */
const countThenWrite: Writer = async (d, s, key, value, ttlMs) => {
  const { keys } = await d.usage(s);
  const exists = (await d.get(s, key)) !== null;
  if (!exists && keys + 1 > MAX_KEYS) throw new Error('over budget');
  return d.set(s, key, value, { ttlMs });
};

describe('maxKeys race on the memory driver', () => {
  it('never exceeds maxKeys and #meta equals the stored rows (200 seeds)', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(raceScenarioArb, async (scenario) => {
        const clock = { now: 1_000_000 };
        const driver = new MemoryDriver({ now: () => clock.now });
        const r = await runRace(driver, clock, (s) => driver.metaCount(s), scenario);
        expect(r.live).toBeLessThanOrEqual(MAX_KEYS);
        expect(r.meta).toBe(r.rows);
        expect(r.metaAfterSweep).toBe(r.liveAfterSweep);
      }),
      { numRuns: 200 },
    );
  });

  it('the check-then-write negative control is caught overrunning the budget', { timeout: 60_000 }, async () => {
    let overruns = 0;
    await fc.assert(
      fc.asyncProperty(raceScenarioArb, async (scenario) => {
        const clock = { now: 1_000_000 };
        const driver = new MemoryDriver({ now: () => clock.now });
        const r = await runRace(driver, clock, (s) => driver.metaCount(s), scenario, (d, s, k, v, ttl) =>
          countThenWrite(d, s, k, v, ttl, false).catch((e: unknown) => { if (e instanceof Error && e.message === 'over budget') return undefined; throw e; }),
        );
        if (r.live > MAX_KEYS) overruns++;
      }),
      { numRuns: 50 },
    );
    expect(overruns).toBeGreaterThan(0);
  });
});

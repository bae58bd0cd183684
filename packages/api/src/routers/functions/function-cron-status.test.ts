/**
 * A cron trigger's record (status.triggers.cron, written by the operator's scheduler) reaches the
 * console and the CLI through functions.get as stored: the schedule, last/next ticks and runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, fnManifest, type Harness } from '../../testing/api-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(() => h.close());

describe('functions.get with a cron trigger', () => {
  it('returns the trigger\'s spec and its record in status', async () => {
    const manifest = fnManifest('nightly') as { spec: Record<string, unknown> };
    await h.store.apply({ ...manifest, spec: { ...manifest.spec, triggers: { cron: [{ name: 'report', schedule: '0 3 * * *', timeZone: 'Europe/Paris' }] } } });
    const record = {
      name: 'report',
      schedule: '0 3 * * *',
      timeZone: 'Europe/Paris',
      suspended: false,
      since: '2026-03-01T00:00:00Z',
      lastScheduleTime: '2026-03-02T02:00:00Z',
      lastSuccessfulTime: '2026-03-02T02:00:00Z',
      nextScheduleTime: '2026-03-03T02:00:00Z',
      missedTicks: 0,
      runs: [{ scheduledTime: '2026-03-02T02:00:00Z', outcome: 'Succeeded', startTime: '2026-03-02T02:00:00.120Z', finishedTime: '2026-03-02T02:00:00.450Z', durationMs: 330, statusCode: 200 }],
    };
    await h.store.updateStatus('Function', 'default', 'nightly', { triggers: { cron: [record] } });
    const fn = await h.as('viewer').functions.get({ name: 'nightly' });
    expect(fn.spec.triggers?.cron).toEqual([expect.objectContaining({ name: 'report', schedule: '0 3 * * *', timeZone: 'Europe/Paris', method: 'POST', path: '/' })]);
    expect(fn.status?.triggers?.cron).toEqual([record]);
  });
});

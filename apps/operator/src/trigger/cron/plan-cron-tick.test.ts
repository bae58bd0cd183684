/**
 * planCronTick and the record it drives (cron-record.ts) with a fake clock: first sight, due and
 * not due, a recorded tick never again, the catch-up after a failover (one tick, inside the
 * deadline), the deadline, suspend and resume, Forbid, a schedule change, a schedule that cannot
 * be read, and daylight-saving transitions walked minute by minute.
 */
import { type CronTrigger, type CronTriggerStatus, CronTriggerSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { recordAfterCall, recordAfterPlan, recordedRunning, recordWithoutAbandoned, rfc3339, withEntry } from './cron-record.ts';
import { type CronPlan, planCronTick } from './plan-cron-tick.ts';

const at = (iso: string) => new Date(iso);
const trigger = (o: Partial<CronTrigger> = {}): CronTrigger => CronTriggerSchema.parse({ name: 'tick', schedule: '*/5 * * * *', ...o });
/** A record that has followed `t` since `since`, last claiming `last`. */
const record = (t: CronTrigger, since: string, last?: string, extra: Partial<CronTriggerStatus> = {}): CronTriggerStatus => ({
  name: t.name,
  schedule: t.schedule,
  ...(t.timeZone ? { timeZone: t.timeZone } : {}),
  suspended: t.suspend,
  since,
  ...(last ? { lastScheduleTime: last } : {}),
  ...extra,
});
const plan = (t: CronTrigger, r: CronTriggerStatus | undefined, now: string, active = false) => planCronTick({ now: at(now), trigger: t, record: r, active });
const ok = (startedAt: Date) => ({ status: 200, startedAt, finishedAt: new Date(startedAt.getTime() + 120) });

describe('planCronTick', () => {
  it('a trigger seen for the first time starts counting now: nothing before it runs', () => {
    const t = trigger();
    expect(plan(t, undefined, '2026-01-01T10:03:00Z')).toEqual({ action: 'observe', reason: 'first-seen', since: at('2026-01-01T10:03:00Z'), next: at('2026-01-01T10:05:00Z') });
    const r = recordAfterPlan(undefined, t, plan(t, undefined, '2026-01-01T10:03:00Z'), at('2026-01-01T10:03:00Z'));
    expect(r).toEqual({ name: 'tick', schedule: '*/5 * * * *', suspended: false, since: '2026-01-01T10:03:00Z', nextScheduleTime: '2026-01-01T10:05:00Z', missedTicks: 0 });
    // 10:00 lies before since: not due, even though lastScheduleTime is absent.
    expect(plan(t, r, '2026-01-01T10:04:59Z')).toEqual({ action: 'wait', reason: 'not-due', next: at('2026-01-01T10:05:00Z') });
  });

  it('a due tick runs once; the record claims it, so it is never due again', () => {
    const t = trigger();
    const r = record(t, '2026-01-01T10:03:00Z', undefined, { nextScheduleTime: '2026-01-01T10:05:00Z' });
    const p = plan(t, r, '2026-01-01T10:05:00.400Z');
    expect(p).toEqual({ action: 'run', reason: 'due', tick: at('2026-01-01T10:05:00Z'), missed: 0, next: at('2026-01-01T10:10:00Z') });
    const claimed = recordAfterPlan(r, t, p, at('2026-01-01T10:05:00.400Z'))!;
    expect(claimed).toMatchObject({ lastScheduleTime: '2026-01-01T10:05:00Z', nextScheduleTime: '2026-01-01T10:10:00Z', runs: [{ scheduledTime: '2026-01-01T10:05:00Z', outcome: 'Running', startTime: '2026-01-01T10:05:00.400Z' }] });
    for (const now of ['2026-01-01T10:05:00.400Z', '2026-01-01T10:07:00Z', '2026-01-01T10:09:59Z']) expect(plan(t, claimed, now).action).toBe('wait');
    const done = recordAfterCall(claimed, at('2026-01-01T10:05:00Z'), ok(at('2026-01-01T10:05:00.400Z')));
    expect(done.runs).toEqual([{ scheduledTime: '2026-01-01T10:05:00Z', outcome: 'Succeeded', startTime: '2026-01-01T10:05:00.400Z', finishedTime: '2026-01-01T10:05:00.520Z', durationMs: 120, statusCode: 200 }]);
    expect(done.lastSuccessfulTime).toBe('2026-01-01T10:05:00Z');
    expect(plan(t, done, '2026-01-01T10:10:00Z')).toMatchObject({ action: 'run', tick: at('2026-01-01T10:10:00Z') });
  });

  it('after a failover the new leader runs exactly the one tick that passed, never the recorded one', () => {
    const t = trigger({ startingDeadlineSeconds: 60 });
    const r = record(t, '2026-01-01T09:00:00Z', '2026-01-01T10:05:00Z');
    // The old leader claimed 10:05 and died; the new one leads from 10:10:20.
    expect(plan(t, r, '2026-01-01T10:10:20Z')).toEqual({ action: 'run', reason: 'due', tick: at('2026-01-01T10:10:00Z'), missed: 0, next: at('2026-01-01T10:15:00Z') });
  });

  it('several missed ticks: only the latest runs, the others are counted', () => {
    const t = trigger();
    const r = record(t, '2026-01-01T09:00:00Z', '2026-01-01T10:05:00Z', { missedTicks: 2 });
    const p = plan(t, r, '2026-01-01T10:21:00Z');
    expect(p).toEqual({ action: 'run', reason: 'caught-up', tick: at('2026-01-01T10:20:00Z'), missed: 2, next: at('2026-01-01T10:25:00Z') });
    expect(recordAfterPlan(r, t, p, at('2026-01-01T10:21:00Z'))?.missedTicks).toBe(4);
  });

  it('a tick found later than startingDeadlineSeconds is missed, not run, and not looked at again', () => {
    const t = trigger({ startingDeadlineSeconds: 60 });
    const r = record(t, '2026-01-01T09:00:00Z', '2026-01-01T10:05:00Z');
    const p = plan(t, r, '2026-01-01T10:11:30Z');
    expect(p).toEqual({ action: 'miss', reason: 'deadline-passed', tick: at('2026-01-01T10:10:00Z'), missed: 1, lateMs: 90_000, next: at('2026-01-01T10:15:00Z') });
    const after = recordAfterPlan(r, t, p, at('2026-01-01T10:11:30Z'))!;
    expect(after).toMatchObject({ lastScheduleTime: '2026-01-01T10:10:00Z', missedTicks: 1, runs: [{ scheduledTime: '2026-01-01T10:10:00Z', outcome: 'Missed', message: 'found 90 s late, past startingDeadlineSeconds 60' }] });
    expect(plan(t, after, '2026-01-01T10:12:00Z').action).toBe('wait');
    // Exactly at the deadline still runs.
    expect(plan(t, r, '2026-01-01T10:11:00Z').action).toBe('run');
  });

  it('without a deadline the latest tick is caught up however late', () => {
    const t = trigger({ schedule: '0 3 * * *' });
    const r = record(t, '2025-12-01T00:00:00Z', '2025-12-20T03:00:00Z');
    expect(plan(t, r, '2026-01-01T12:00:00Z')).toMatchObject({ action: 'run', reason: 'caught-up', tick: at('2026-01-01T03:00:00Z'), missed: 11 });
  });

  it('a very long outage counts at most 1000 missed ticks and still runs the latest', () => {
    const t = trigger({ schedule: '* * * * *' });
    const r = record(t, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
    expect(plan(t, r, '2026-01-01T12:34:56Z')).toMatchObject({ action: 'run', tick: at('2026-01-01T12:34:00Z'), missed: 999 });
  });

  it('suspend: recorded once, no tick runs, and ticks that passed while suspended are not caught up', () => {
    const t = trigger();
    const r = record(t, '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z', { nextScheduleTime: '2026-01-01T10:05:00Z' });
    const suspended = trigger({ suspend: true });
    const p = plan(suspended, r, '2026-01-01T10:02:00Z');
    expect(p).toEqual({ action: 'observe', reason: 'suspended', since: at('2026-01-01T10:02:00Z'), next: undefined });
    const s = recordAfterPlan(r, suspended, p, at('2026-01-01T10:02:00Z'))!;
    expect(s).toMatchObject({ suspended: true, lastScheduleTime: '2026-01-01T10:00:00Z' });
    expect(s.nextScheduleTime).toBeUndefined();
    expect(plan(suspended, s, '2026-01-01T11:00:00Z')).toEqual({ action: 'wait', reason: 'suspended', next: undefined });
    expect(recordAfterPlan(s, suspended, plan(suspended, s, '2026-01-01T11:00:00Z'), at('2026-01-01T11:00:00Z'))).toBeUndefined();
    const resumed = plan(t, s, '2026-01-01T11:01:00Z');
    expect(resumed).toEqual({ action: 'observe', reason: 'resumed', since: at('2026-01-01T11:01:00Z'), next: at('2026-01-01T11:05:00Z') });
    const back = recordAfterPlan(s, t, resumed, at('2026-01-01T11:01:00Z'))!;
    expect(plan(t, back, '2026-01-01T11:04:00Z').action).toBe('wait');
    expect(plan(t, back, '2026-01-01T11:05:00Z')).toMatchObject({ action: 'run', reason: 'due', missed: 0 });
  });

  it('Forbid skips a tick while a call is running; Allow runs it', () => {
    const forbid = trigger({ concurrencyPolicy: 'Forbid' });
    const r = record(forbid, '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z');
    const p = plan(forbid, r, '2026-01-01T10:05:01Z', true);
    expect(p).toEqual({ action: 'skip', reason: 'forbid-active', tick: at('2026-01-01T10:05:00Z'), missed: 0, next: at('2026-01-01T10:10:00Z') });
    expect(recordAfterPlan(r, forbid, p, at('2026-01-01T10:05:01Z'))).toMatchObject({
      lastScheduleTime: '2026-01-01T10:05:00Z',
      missedTicks: 1,
      runs: [{ scheduledTime: '2026-01-01T10:05:00Z', outcome: 'Skipped' }],
    });
    expect(plan(forbid, r, '2026-01-01T10:05:01Z', false).action).toBe('run');
    expect(plan(trigger(), record(trigger(), '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z'), '2026-01-01T10:05:01Z', true).action).toBe('run');
  });

  it('a changed schedule or time zone starts anew: ticks of the new schedule before the change do not run', () => {
    const old = trigger({ schedule: '0 * * * *' });
    const r = record(old, '2026-01-01T00:00:00Z', '2026-01-01T10:00:00Z');
    const moved = trigger({ schedule: '15 * * * *' });
    expect(plan(moved, r, '2026-01-01T10:30:00Z')).toEqual({ action: 'observe', reason: 'schedule-changed', since: at('2026-01-01T10:30:00Z'), next: at('2026-01-01T11:15:00Z') });
    expect(plan(trigger({ schedule: '0 * * * *', timeZone: 'Asia/Kolkata' }), r, '2026-01-01T10:30:00Z')).toMatchObject({ action: 'observe', reason: 'schedule-changed' });
    // UTC written or left out is the same zone.
    expect(plan(trigger({ schedule: '0 * * * *', timeZone: 'UTC' }), r, '2026-01-01T10:30:00Z').action).toBe('wait');
  });

  it('a schedule that cannot be read is reported once, not run', () => {
    const bad = { ...trigger(), timeZone: 'Mars/Olympus_Mons' };
    const p = plan(bad, undefined, '2026-01-01T10:00:00Z');
    expect(p).toMatchObject({ action: 'broken' });
    const r = recordAfterPlan(undefined, bad, p, at('2026-01-01T10:00:00Z'))!;
    expect(r.problem).toMatch(/Mars\/Olympus_Mons/);
    expect(recordAfterPlan(r, bad, plan(bad, r, '2026-01-01T10:05:00Z'), at('2026-01-01T10:05:00Z'))).toBeUndefined();
    // Fixed: counting starts at the fix.
    expect(plan(trigger(), r, '2026-01-01T10:07:00Z')).toMatchObject({ action: 'observe', reason: 'first-seen' });
  });
});

/** A scheduler that wakes every `stepMs` from `from` to `to` and runs what the plan says; returns the ticks it ran. */
function walk(t: CronTrigger, from: string, to: string, stepMs: number): { ran: string[]; record: CronTriggerStatus } {
  let r: CronTriggerStatus | undefined;
  const ran: string[] = [];
  for (let now = at(from).getTime(); now <= at(to).getTime(); now += stepMs) {
    const p: CronPlan = planCronTick({ now: new Date(now), trigger: t, record: r, active: false });
    r = recordAfterPlan(r, t, p, new Date(now)) ?? r;
    if (p.action === 'run') {
      ran.push(rfc3339(p.tick));
      r = recordAfterCall(r!, p.tick, ok(new Date(now)));
    }
  }
  return { ran, record: r! };
}

describe('daylight-saving transitions (Europe/Berlin), walked minute by minute', () => {
  it('spring forward: a fixed-time tick in the gap (02:30) runs once, at 03:00 local', { timeout: 30_000 }, () => {
    const { ran } = walk(trigger({ schedule: '30 2 * * *', timeZone: 'Europe/Berlin' }), '2026-03-28T01:00:00Z', '2026-03-30T01:00:00Z', 60_000);
    expect(ran).toEqual(['2026-03-28T01:30:00Z', '2026-03-29T01:00:00Z', '2026-03-30T00:30:00Z']);
  });

  it('fall back: a fixed-time tick in the repeated hour runs once, at its first occurrence', { timeout: 30_000 }, () => {
    const { ran } = walk(trigger({ schedule: '30 2 * * *', timeZone: 'Europe/Berlin' }), '2026-10-24T23:00:00Z', '2026-10-26T02:00:00Z', 60_000);
    expect(ran).toEqual(['2026-10-25T00:30:00Z', '2026-10-26T01:30:00Z']);
  });

  it('fall back: an interval schedule runs in both passes of the repeated hour (real time goes on)', () => {
    const { ran } = walk(trigger({ schedule: '*/30 * * * *', timeZone: 'Europe/Berlin' }), '2026-10-24T23:50:00Z', '2026-10-25T02:10:00Z', 60_000);
    expect(ran).toEqual(['2026-10-25T00:00:00Z', '2026-10-25T00:30:00Z', '2026-10-25T01:00:00Z', '2026-10-25T01:30:00Z', '2026-10-25T02:00:00Z']);
  });

  it('a scheduler waking every 7 minutes still runs each 5-minute tick at most once and counts the rest', () => {
    const { ran, record: r } = walk(trigger(), '2026-01-01T10:00:30Z', '2026-01-01T11:00:00Z', 7 * 60_000);
    expect(new Set(ran).size).toBe(ran.length);
    expect(ran.length + r.missedTicks!).toBe(11); // 10:05 … 10:55, the ticks in (10:00:30, 10:56:30]
    expect(r.runs!.length).toBeLessThanOrEqual(10);
  });
});

describe('cron record helpers', () => {
  const t = trigger();
  const running = record(t, '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z', { runs: [{ scheduledTime: '2026-01-01T10:00:00Z', outcome: 'Running', startTime: '2026-01-01T10:00:01Z' }] });

  it('a Running run of another replica counts as active until the timeout, then is repaired as Failed', () => {
    expect(recordedRunning(running, at('2026-01-01T10:04:00Z'), 300_000)).toBe(true);
    expect(recordedRunning(running, at('2026-01-01T10:06:00Z'), 300_000)).toBe(false);
    expect(recordWithoutAbandoned(running, at('2026-01-01T10:04:00Z'), 300_000, () => false)).toBeUndefined();
    expect(recordWithoutAbandoned(running, at('2026-01-01T10:06:00Z'), 300_000, () => true)).toBeUndefined();
    expect(recordWithoutAbandoned(running, at('2026-01-01T10:06:00Z'), 300_000, () => false)?.runs).toEqual([
      { scheduledTime: '2026-01-01T10:00:00Z', outcome: 'Failed', startTime: '2026-01-01T10:00:01Z', message: expect.stringMatching(/failover/) },
    ]);
  });

  it('a failed call keeps lastSuccessfulTime and says why', () => {
    const failed = recordAfterCall({ ...running, lastSuccessfulTime: '2026-01-01T09:55:00Z' }, at('2026-01-01T10:00:00Z'), { status: 503, startedAt: at('2026-01-01T10:00:01Z'), finishedAt: at('2026-01-01T10:00:02Z') });
    expect(failed.runs![0]).toMatchObject({ outcome: 'Failed', statusCode: 503, message: 'answered 503', durationMs: 1000 });
    expect(failed.lastSuccessfulTime).toBe('2026-01-01T09:55:00Z');
    const refused = recordAfterCall(running, at('2026-01-01T10:00:00Z'), { error: 'ECONNREFUSED', startedAt: at('2026-01-01T10:00:01Z'), finishedAt: at('2026-01-01T10:00:01Z') });
    expect(refused.runs![0]).toMatchObject({ outcome: 'Failed', message: 'ECONNREFUSED' });
    expect(refused.runs![0]).not.toHaveProperty('statusCode');
  });

  it('history keeps the last 10 runs; the list follows the spec, dropping removed triggers', () => {
    let r: CronTriggerStatus = record(t, '2026-01-01T00:00:00Z');
    for (let i = 1; i <= 12; i++) {
      const now = new Date(at('2026-01-01T00:00:00Z').getTime() + i * 300_000);
      r = recordAfterPlan(r, t, plan(t, r, now.toISOString()), now)!;
    }
    expect(r.runs!.map((x) => x.scheduledTime)).toEqual(Array.from({ length: 10 }, (_, i) => rfc3339(new Date(at('2026-01-01T00:15:00Z').getTime() + i * 300_000))));
    const entries = [{ name: 'b' }, { name: 'gone' }, { name: 'a' }];
    expect(withEntry(entries, { name: 'a', since: 'x' }, ['a', 'b', 'c'])).toEqual([{ name: 'a', since: 'x' }, { name: 'b' }]);
  });
});

/**
 * validate() on spec.triggers.cron (docs/triggers.md "Cron"): every field's bounds with its
 * reason at the field's path (the webhook, the CLI and the API answer with these), the defaults
 * a parsed trigger gets, and the schedule read as time (cron-schedule.ts).
 */
import { describe, expect, it } from 'vitest';
import { FunctionSchema } from '../kinds/function.ts';
import { CRON_TRIGGER_DEFAULTS, MAX_TICKS_COUNTED, cronScheduleProblem, parseCronSchedule, ticksBetween } from '../kinds/function-cron-trigger.ts';
import { validate } from './index.ts';

const fn = (...cron: Array<Record<string, unknown>>) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'report', namespace: 'shop' },
  spec: { template: { source: { inline: 'x' } }, triggers: { cron } },
});
const ok = { name: 'nightly', schedule: '0 3 * * *' };
const errors = (...cron: Array<Record<string, unknown>>) => validate(fn(...cron));
const reasons = (...cron: Array<Record<string, unknown>>) => errors(...cron).map((e) => [e.path, e.reason]);

describe('spec.triggers.cron', () => {
  it('a minimal trigger is valid and gets the defaults', () => {
    expect(reasons(ok)).toEqual([]);
    const parsed = FunctionSchema.parse(fn(ok));
    expect(parsed.spec.triggers?.cron).toEqual([{ ...ok, ...CRON_TRIGGER_DEFAULTS }]);
  });

  it('a full trigger is valid', () => {
    expect(
      reasons({
        ...ok,
        schedule: '*/15 9-17 * * mon-fri',
        timeZone: 'Europe/Paris',
        method: 'PUT',
        path: '/report?period=day&format=csv',
        body: '{"kind":"daily"}',
        headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'X-Report', value: 'a' }],
        suspend: true,
        concurrencyPolicy: 'Forbid',
        startingDeadlineSeconds: 300,
      }),
    ).toEqual([]);
    expect(reasons({ ...ok, schedule: '@daily' }, { name: 'fast', schedule: '0,30 * * * * *', timeZone: 'UTC' })).toEqual([]);
  });

  it.each([
    ['schedule', '* * *', 'cron_schedule'],
    ['schedule', '61 * * * *', 'cron_schedule'],
    ['schedule', '@reboot', 'cron_schedule'],
    ['schedule', '*/5 * * * * *', 'cron_schedule'],
    ['schedule', '30-10 * * * *', 'cron_schedule'],
    ['schedule', '0 0 30 2 *', 'cron_schedule'],
    ['schedule', '*/70 * * * *', 'cron_schedule'],
    ['schedule', `0 0 * * *${' '.repeat(100)}`, 'cron_schedule'],
    ['timeZone', 'Mars/Olympus_Mons', 'cron_time_zone'],
    ['timeZone', '+02:00', 'cron_time_zone'],
    ['timeZone', 'Local', 'cron_time_zone'],
    ['method', 'HEAD', 'enum'],
    ['path', 'report', 'cron_path'],
    ['path', '/a b', 'cron_path'],
    ['path', '/a#b', 'cron_path'],
    ['body', 'x'.repeat(4097), 'cron_body'],
    ['concurrencyPolicy', 'Replace', 'enum'],
    ['startingDeadlineSeconds', 0, 'cron_starting_deadline'],
    ['startingDeadlineSeconds', 1.5, 'type'],
  ])('%s %j → %s', (field, value, reason) => {
    expect(reasons({ ...ok, [field]: value })).toContainEqual([`spec.triggers.cron[0].${field}`, reason]);
  });

  it('says what to do, with croner\'s words when the shape is right but the schedule is not', () => {
    const [backwards] = errors({ ...ok, schedule: '30-10 * * * *' });
    expect(backwards?.message).toMatch(/From value is larger than to value.*write five fields/);
    const [never] = errors({ ...ok, schedule: '0 0 30 2 *' });
    expect(never?.message).toMatch(/never fires/);
  });

  it('headers: names are tokens, not reserved, each once; values one line', () => {
    const h = (...headers: Array<Record<string, unknown>>) => reasons({ ...ok, headers });
    expect(h({ name: 'Orrery-Trigger', value: 'x' })).toContainEqual(['spec.triggers.cron[0].headers[0].name', 'cron_header_reserved']);
    expect(h({ name: 'host', value: 'x' })).toContainEqual(['spec.triggers.cron[0].headers[0].name', 'cron_header_reserved']);
    expect(h({ name: 'a b', value: 'x' })).toContainEqual(['spec.triggers.cron[0].headers[0].name', 'cron_header_name']);
    expect(h({ name: 'X-A', value: 'a\r\nInjected: 1' })).toContainEqual(['spec.triggers.cron[0].headers[0].value', 'cron_header_value']);
    expect(h({ name: 'X-A', value: 'a' }, { name: 'x-a', value: 'b' })).toContainEqual(['spec.triggers.cron[0].headers', 'cron_header_duplicate']);
    expect(h(...Array.from({ length: 17 }, (_, i) => ({ name: `X-${i}`, value: 'v' })))).toContainEqual(['spec.triggers.cron[0].headers', 'cron_headers']);
  });

  it('a body needs a method that carries one', () => {
    expect(reasons({ ...ok, method: 'GET', body: 'x' })).toContainEqual(['spec.triggers.cron[0].body', 'cron_body_method']);
    expect(reasons({ ...ok, body: 'x' })).toEqual([]);
  });

  it('names are DNS labels, each once among the cron triggers, at most 16 triggers', () => {
    expect(reasons(ok, { ...ok })).toContainEqual(['spec.triggers.cron[1].name', 'trigger_name_duplicate']);
    expect(reasons({ ...ok, name: 'Nightly' })).toContainEqual(['spec.triggers.cron[0].name', 'trigger_name']);
    expect(reasons(...Array.from({ length: 17 }, (_, i) => ({ ...ok, name: `t${i}` }))).map(([, r]) => r)).toContain('max');
  });
});

describe('a schedule read as time', () => {
  const at = (iso: string) => new Date(iso);

  it('next() is strictly after, in the time zone, on whole seconds', () => {
    const s = parseCronSchedule('0 3 * * *', 'Europe/Paris');
    expect(s.next(at('2026-01-10T01:59:59.900Z'))?.toISOString()).toBe('2026-01-10T02:00:00.000Z');
    expect(s.next(at('2026-01-10T02:00:00.000Z'))?.toISOString()).toBe('2026-01-11T02:00:00.000Z');
    expect(s.next(at('2026-07-10T00:00:00Z'))?.toISOString()).toBe('2026-07-10T01:00:00.000Z');
  });

  it('counts the ticks in (after, upTo] and finds the latest, capped past MAX_TICKS_COUNTED', () => {
    const every = parseCronSchedule('* * * * *');
    expect(ticksBetween(every, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:05:00Z'))).toEqual({ count: 5, latest: at('2026-01-01T00:05:00Z'), capped: false });
    expect(ticksBetween(every, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:59Z'))).toEqual({ count: 0, latest: undefined, capped: false });
    const long = ticksBetween(every, at('2026-01-01T00:00:00Z'), at('2026-03-01T12:34:56Z'));
    expect(long).toEqual({ count: MAX_TICKS_COUNTED, latest: at('2026-03-01T12:34:00Z'), capped: true });
    const sparse = ticksBetween(parseCronSchedule('* * 1 1 *'), at('2025-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'));
    expect(sparse).toMatchObject({ count: MAX_TICKS_COUNTED, latest: at('2026-01-01T23:59:00Z'), capped: true });
  });

  it('problems are croner\'s words; a time zone croner refuses is a problem too', () => {
    expect(cronScheduleProblem('0 3 * * *')).toBeUndefined();
    expect(cronScheduleProblem('0 25 * * *')).toMatch(/hour/);
    expect(() => parseCronSchedule('0 3 * * *', 'Mars/Olympus_Mons').next(new Date())).toThrow();
  });
});

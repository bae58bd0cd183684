import { FunctionSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { describeFunction } from './function-description.ts';

const now = new Date('2026-03-01T12:00:00Z');
const fn = (triggers: unknown, status?: unknown) =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'report', namespace: 'shop', creationTimestamp: '2026-03-01T10:00:00Z' },
    spec: { template: { source: { inline: 'x' } }, triggers },
    ...(status ? { status } : {}),
  });
const describeIt = (f: ReturnType<typeof fn>) => describeFunction({ fn: f, revisions: [], events: [], workerErrors: [], now });
const rows = (out: string, from: string, to: string) =>
  out
    .slice(out.indexOf(from), out.indexOf(to, out.indexOf(from)))
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s{3,}/));

describe('orrery describe function: cron triggers', () => {
  it('shows each trigger with its record, then its runs newest first', () => {
    const out = describeIt(
      fn(
        {
          cron: [
            { name: 'nightly', schedule: '0 3 * * *', timeZone: 'Europe/Paris', path: '/report', concurrencyPolicy: 'Forbid' },
            { name: 'paused', schedule: '*/5 * * * *', suspend: true, method: 'GET' },
          ],
        },
        {
          triggers: {
            cron: [
              {
                name: 'nightly',
                since: '2026-02-01T00:00:00Z',
                lastScheduleTime: '2026-03-01T02:00:00Z',
                lastSuccessfulTime: '2026-02-28T02:00:00Z',
                nextScheduleTime: '2026-03-02T02:00:00Z',
                missedTicks: 1,
                runs: [
                  { scheduledTime: '2026-02-28T02:00:00Z', outcome: 'Succeeded', statusCode: 200, durationMs: 340 },
                  { scheduledTime: '2026-03-01T02:00:00Z', outcome: 'Failed', statusCode: 500, durationMs: 12, message: 'answered 500' },
                ],
              },
            ],
          },
        },
      ),
    );
    expect(rows(out, 'Cron triggers:', '  Runs of')).toEqual([
      ['NAME', 'SCHEDULE', 'TIME ZONE', 'CALL', 'LAST', 'LAST SUCCESS', 'NEXT', 'MISSED', 'POLICY'],
      ['nightly', '0 3 * * *', 'Europe/Paris', 'POST /report', '10h ago', '1d ago', 'in 14h', '1', 'Forbid'],
      ['paused', '*/5 * * * *', 'UTC', 'GET /', '<none>', '<none>', 'suspended', '0', 'Allow'],
    ]);
    expect(rows(out, '  Runs of nightly', '\n\n')).toEqual([
      ['SCHEDULED', 'OUTCOME', 'STATUS', 'DURATION', 'MESSAGE'],
      ['2026-03-01T02:00:00Z', 'Failed', '500', '12ms', 'answered 500'],
      ['2026-02-28T02:00:00Z', 'Succeeded', '200', '340ms'],
    ]);
    expect(out.indexOf('Cron triggers:')).toBeLessThan(out.indexOf('Conditions:'));
  });

  it('says why a trigger does not run, and prints nothing for a Function without cron triggers', () => {
    const broken = describeIt(fn({ cron: [{ name: 'x', schedule: '0 3 * * *' }] }, { triggers: { cron: [{ name: 'x', schedule: '0 3 * * *', problem: 'time zone Mars/Base is unknown' }] } }));
    expect(broken).toContain('never (see below)');
    expect(broken).toContain('  x does not run: time zone Mars/Base is unknown');
    expect(describeIt(fn(undefined))).not.toContain('Cron triggers:');
  });
});

/**
 * The "Cron triggers:" section of `orrery describe function` (docs/triggers.md "Cron"): each
 * trigger's schedule, call and record (last, last success, next, missed ticks), then its recent
 * runs newest first. Pure: lines of text from the Function as read.
 */
import type { CronRun, OrreryFunction } from '@orrery/spec';
import { formatAge } from '../resources/age.ts';

type Table = (header: string[], rows: string[][], indent?: string) => string[];

/** `5m ago`, `in 3h`, or `<none>`. */
function when(ts: string | undefined, now: Date): string {
  if (!ts) return '<none>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return t > now.getTime() ? `in ${formatAge(now.toISOString(), new Date(t))}` : `${formatAge(ts, now)} ago`;
}

function runRow(r: CronRun): string[] {
  return [r.scheduledTime, r.outcome, r.statusCode !== undefined ? String(r.statusCode) : '', r.durationMs !== undefined ? `${r.durationMs}ms` : '', r.message ?? ''];
}

/** No lines when the Function has no cron trigger. At most `runs` runs per trigger. */
export function cronTriggerLines(fn: OrreryFunction, now: Date, table: Table, runs = 5): string[] {
  const triggers = fn.spec.triggers?.cron ?? [];
  if (triggers.length === 0) return [];
  const records = new Map((fn.status?.triggers?.cron ?? []).map((r) => [r.name, r]));
  const out = ['', 'Cron triggers:'];
  out.push(
    ...table(
      ['NAME', 'SCHEDULE', 'TIME ZONE', 'CALL', 'LAST', 'LAST SUCCESS', 'NEXT', 'MISSED', 'POLICY'],
      triggers.map((t) => {
        const r = records.get(t.name);
        const next = t.suspend ? 'suspended' : r?.problem ? 'never (see below)' : when(r?.nextScheduleTime, now);
        return [t.name, t.schedule, t.timeZone ?? 'UTC', `${t.method} ${t.path}`, when(r?.lastScheduleTime, now), when(r?.lastSuccessfulTime, now), next, String(r?.missedTicks ?? 0), t.concurrencyPolicy];
      }),
    ),
  );
  for (const t of triggers) {
    const r = records.get(t.name);
    if (r?.problem) out.push(`  ${t.name} does not run: ${r.problem}`);
    const recent = [...(r?.runs ?? [])].reverse().slice(0, runs);
    if (recent.length === 0) continue;
    out.push(`  Runs of ${t.name} (newest first):`, ...table(['SCHEDULED', 'OUTCOME', 'STATUS', 'DURATION', 'MESSAGE'], recent.map(runRow), '    '));
  }
  return out;
}

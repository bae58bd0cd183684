/**
 * The Events a cron trigger records on its Function (reasons in events/event-recorder.ts,
 * documented in docs/operations.md). Messages carry no tick time where a repeat should count on
 * one Event series (a call answered 200 every minute is one Event with a count), and name no
 * header or body value.
 */
import type { CronTrigger } from '@orrery/spec';
import type { OperatorEvent } from '../../events/event-recorder.ts';
import { invocationSucceeded, type TriggerResult } from '../trigger-invoker.ts';
import { rfc3339 } from './cron-record.ts';
import type { CronPlan } from './plan-cron-tick.ts';

const call = (t: CronTrigger) => `${t.method} ${t.path}`;

/** The outcome of one call. */
export function callEvent(t: CronTrigger, result: TriggerResult): OperatorEvent {
  if (invocationSucceeded(result)) return { reason: 'CronTriggered', message: `cron trigger ${t.name}: ${call(t)} answered ${result.status}` };
  const what = result.status !== undefined ? `answered ${result.status}` : `failed: ${result.error ?? 'no answer'}`;
  return { reason: 'CronFailed', message: `cron trigger ${t.name}: ${call(t)} ${what}` };
}

/** What a written plan reports besides a call: missed or skipped ticks, a schedule that cannot be read. */
export function planEvents(t: CronTrigger, plan: CronPlan): OperatorEvent[] {
  switch (plan.action) {
    case 'broken':
      return [{ reason: 'CronScheduleInvalid', message: `cron trigger ${t.name} does not run: ${plan.problem}` }];
    case 'miss':
      return [{ reason: 'CronMissed', message: `cron trigger ${t.name} missed ${plan.missed} tick(s) up to ${rfc3339(plan.tick)}: found ${Math.round(plan.lateMs / 1000)} s late, past startingDeadlineSeconds ${t.startingDeadlineSeconds} (no operator led, or it was down)` }];
    case 'skip':
      return [{ reason: 'CronMissed', message: `cron trigger ${t.name} skipped the tick of ${rfc3339(plan.tick)}: the previous call was still running (concurrencyPolicy Forbid)` }];
    case 'run':
      return plan.missed > 0
        ? [{ reason: 'CronMissed', message: `cron trigger ${t.name} missed ${plan.missed} tick(s) before ${rfc3339(plan.tick)}, which runs late instead (no operator led, or it was down)` }]
        : [];
    default:
      return [];
  }
}

import type { NotRunnable } from '@orrery/api';

/** What the revisions timeline's "Roll back to this" button offers for one revision. */
export interface RollbackChoice {
  enabled: boolean;
  /** The button's tooltip: what it does, or why it is disabled. */
  title: string;
}

/**
 * The rollback button of revision `name`: disabled for a revision that can never serve (the API's
 * verdict from functions.revisions; functions.rollback refuses it too, 400 revision_not_runnable)
 * and for the one that already receives all traffic. `serving` is its share in status.traffic;
 * with a `latestRevision` entry in the spec, 100 % today is not a pin, so rolling back still means something.
 */
export function rollbackChoice(name: string, serving: ReadonlyArray<{ percent: number }>, specFollowsLatest: boolean, notRunnable: NotRunnable | undefined): RollbackChoice {
  if (notRunnable) return { enabled: false, title: `cannot roll back to ${name}: ${notRunnable.message}, so it can never serve traffic` };
  const percent = serving.reduce((a, t) => a + t.percent, 0);
  if (percent === 100 && serving.length === 1 && !specFollowsLatest) return { enabled: false, title: 'already receives all traffic' };
  return { enabled: true, title: `send 100 % of traffic to ${name}` };
}

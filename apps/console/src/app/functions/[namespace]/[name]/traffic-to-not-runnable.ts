import type { NotRunnable } from '@orrery/api';
import type { TrafficRow } from '../../traffic-draft.ts';

/** A share of the split that goes to a revision that can never serve. */
export interface TrafficToNotRunnable {
  key: string;
  percent: number;
  /** The API's words for why (functions.revisions' notRunnable). */
  message: string;
}

/**
 * The traffic editor's rows that send requests to a revision that can never serve (its package
 * build failed): the editor warns on each row and in the confirmation. The API accepts such a
 * split (functions.traffic.set; only a rollback is refused): a share left on a failed revision
 * while it is moved away must stay editable.
 */
export function trafficToNotRunnable(rows: readonly TrafficRow[], notRunnable: Readonly<Record<string, NotRunnable>>): TrafficToNotRunnable[] {
  return rows.flatMap((r) => {
    const why = Object.hasOwn(notRunnable, r.key) ? notRunnable[r.key] : undefined;
    return why && r.percent > 0 ? [{ key: r.key, percent: r.percent, message: why.message }] : [];
  });
}

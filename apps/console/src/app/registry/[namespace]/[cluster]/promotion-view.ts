import type { Member } from './members-output.ts';

/** A learner's promotion verdict as registry.members gives it (the rule of @orrery/spec, computed by the API). */
export type PromotionVerdict = NonNullable<Member['promotion']>;

export interface PromotionView {
  ready: boolean;
  /** e.g. `8000 entries behind`; `lag unknown` when the operator has not seen both indexes. */
  lag: string;
  /** e.g. `caught up in 1 of 2 polls`. */
  polls: string;
  /** Why Promote is disabled (the rule's words), or undefined when it may run. */
  reason?: string;
}

/**
 * What the member table shows for a learner and whether its Promote button is enabled: the API's
 * verdict, not a rule of the console's own (registry.promote refuses exactly when this says wait).
 */
export function promotionView(v: PromotionVerdict | null | undefined): PromotionView {
  if (!v) return { ready: false, lag: 'lag unknown', polls: 'not observed yet', reason: "the operator has not observed this learner yet; wait for its next poll" };
  const lag = v.lag === null ? 'lag unknown' : `${v.lag} ${v.lag === 1 ? 'entry' : 'entries'} behind`;
  const polls = `caught up in ${v.polls} of ${v.required} polls`;
  return v.ready ? { ready: true, lag, polls } : { ready: false, lag, polls, reason: v.message };
}

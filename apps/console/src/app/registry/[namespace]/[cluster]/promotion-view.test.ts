import { describe, expect, it } from 'vitest';
import { promotionView, type PromotionVerdict } from './promotion-view.ts';

const verdict = (over: Partial<PromotionVerdict> = {}): PromotionVerdict => ({
  ready: false,
  blocker: 'lagging',
  lag: 8_000,
  appliedIndex: 1_000,
  committedIndex: 9_000,
  polls: 0,
  required: 2,
  message: 'learner reg-4 is 8000 entries behind the leader reg-1 (applied 1000 of committed 9000); wait until it is within 100 entries',
  ...over,
});

describe('promotionView', () => {
  it('a learner the rule does not pass: Promote disabled with the rule\'s words, lag and polls shown', () => {
    expect(promotionView(verdict())).toEqual({
      ready: false,
      lag: '8000 entries behind',
      polls: 'caught up in 0 of 2 polls',
      reason: 'learner reg-4 is 8000 entries behind the leader reg-1 (applied 1000 of committed 9000); wait until it is within 100 entries',
    });
    // 95 % of the leader's index (enough for the old console) is still far behind
    expect(promotionView(verdict({ lag: 500, appliedIndex: 9_500, committedIndex: 10_000, message: 'behind' })).ready).toBe(false);
    expect(promotionView(verdict({ blocker: 'not-stable', lag: 1, polls: 1, message: 'one poll only' }))).toMatchObject({ ready: false, lag: '1 entry behind', polls: 'caught up in 1 of 2 polls', reason: 'one poll only' });
  });
  it('a learner the rule passes: Promote enabled, no reason', () => {
    expect(promotionView(verdict({ ready: true, blocker: undefined, lag: 3, polls: 2, message: 'caught up' }))).toEqual({ ready: true, lag: '3 entries behind', polls: 'caught up in 2 of 2 polls' });
  });
  it('no verdict (an API that does not know the learner yet) is a wait, not a yes', () => {
    expect(promotionView(null)).toMatchObject({ ready: false, lag: 'lag unknown', reason: expect.stringMatching(/not observed/) as unknown });
    expect(promotionView(verdict({ lag: null, polls: 0, message: 'no index' })).lag).toBe('lag unknown');
  });
});

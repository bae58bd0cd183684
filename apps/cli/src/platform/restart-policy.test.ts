import { describe, expect, it } from 'vitest';
import { type RestartState, DEFAULT_RESTART_POLICY, decideRestart, formatDelay, initialRestartState, markStarted } from './restart-policy.ts';

/** Crash at each time (the child is up again right after each restart's delay). */
function crashAt(times: number[], state: RestartState = initialRestartState()) {
  const decisions = [];
  for (const t of times) {
    const d = decideRestart(state, t);
    decisions.push(d);
    state = d.action === 'restart' ? markStarted(d.state, t + d.delayMs) : d.state;
  }
  return { decisions, state };
}

describe('decideRestart', () => {
  it('backs off from 0.5 s, doubling, capped at 30 s', () => {
    let state = initialRestartState();
    const delays: number[] = [];
    // Crashes 40 s apart: never 5 inside 2 minutes, never 60 s of healthy running.
    for (let i = 0; i < 9; i++) {
      const d = decideRestart(state, i * 40_000);
      expect(d.action).toBe('restart');
      if (d.action !== 'restart') return;
      delays.push(d.delayMs);
      expect(d.attempt).toBe(i + 1);
      state = markStarted(d.state, i * 40_000 + 1); // ran 39 s before the next crash
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts again from the first delay after 60 s of healthy running', () => {
    const { state } = crashAt([0, 1_000, 5_000]);
    expect(state.attempt).toBe(3);
    const ranLong = decideRestart(markStarted(state, 10_000), 70_000);
    expect(ranLong).toMatchObject({ action: 'restart', delayMs: 500, attempt: 1 });
    const ranShort = decideRestart(markStarted(state, 10_000), 69_999);
    expect(ranShort).toMatchObject({ action: 'restart', delayMs: 4_000, attempt: 4 });
  });

  it('gives up on the 5th crash within 2 minutes, with the reason', () => {
    const { decisions } = crashAt([0, 10_000, 20_000, 30_000, 40_000]);
    expect(decisions.slice(0, 4).every((d) => d.action === 'restart')).toBe(true);
    expect(decisions[4]).toMatchObject({ action: 'give-up', reason: 'crashed 5 times within 2 min' });
  });

  it('forgets crashes older than the window', () => {
    // 4 crashes, then a quiet 2 minutes (short runs, so the backoff keeps growing), then more.
    const { decisions } = crashAt([0, 1_000, 2_000, 3_000, 130_000, 131_000]);
    expect(decisions.every((d) => d.action === 'restart')).toBe(true);
  });

  it('counts a crash that happened before the child was ever ready (start failure)', () => {
    const first = decideRestart(initialRestartState(), 0);
    expect(first.action).toBe('restart');
    if (first.action !== 'restart') return;
    expect(first.state.startedAt).toBeUndefined();
    const second = decideRestart(first.state, 600); // the restart failed to start: no markStarted
    expect(second).toMatchObject({ action: 'restart', attempt: 2, delayMs: 1_000 });
  });

  it('the policy is configurable and delays format for humans', () => {
    const d = decideRestart(initialRestartState(), 0, { ...DEFAULT_RESTART_POLICY, crashLimit: 1 });
    expect(d).toMatchObject({ action: 'give-up', reason: 'crashed 1 times within 2 min' });
    expect(formatDelay(500)).toBe('0.5 s');
    expect(formatDelay(30_000)).toBe('30 s');
    expect(formatDelay(120_000)).toBe('2 min');
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchParent } from './parent-watch.ts';

describe('watchParent', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('calls onGone once, at the first check after the parent pid changes', () => {
    let ppid = 100;
    const gone = vi.fn();
    watchParent(100, gone, { intervalMs: 1_000, parentPid: () => ppid });
    vi.advanceTimersByTime(5_000);
    expect(gone).not.toHaveBeenCalled();
    ppid = 1; // handed to init
    vi.advanceTimersByTime(999);
    expect(gone).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gone).toHaveBeenCalledTimes(1);
    ppid = 100;
    vi.advanceTimersByTime(10_000);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('calls onGone at once when the parent is already another process', () => {
    const gone = vi.fn();
    watchParent(100, gone, { parentPid: () => 7 });
    expect(gone).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('stops checking when stopped', () => {
    let ppid = 100;
    const gone = vi.fn();
    const stop = watchParent(100, gone, { intervalMs: 500, parentPid: () => ppid });
    stop();
    ppid = 1;
    vi.advanceTimersByTime(10_000);
    expect(gone).not.toHaveBeenCalled();
  });

  it('reads the real parent pid by default: this process\'s parent is not gone', () => {
    const gone = vi.fn();
    const stop = watchParent(process.ppid, gone);
    vi.advanceTimersByTime(3_000);
    stop();
    expect(gone).not.toHaveBeenCalled();
    watchParent(process.ppid + 1_000_000, gone);
    expect(gone).toHaveBeenCalledTimes(1);
  });
});

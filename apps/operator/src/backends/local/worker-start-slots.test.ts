import { describe, expect, it } from 'vitest';
import { WorkerStartSlots } from './worker-start-slots.ts';

function recorder() {
  const started: string[] = [];
  return { started, go: (name: string) => () => started.push(name) };
}

describe('WorkerStartSlots', () => {
  it('starts at once while slots are free, then queues', () => {
    const slots = new WorkerStartSlots(2);
    const r = recorder();
    slots.take(false, r.go('a'));
    slots.take(false, r.go('b'));
    slots.take(false, r.go('c'));
    expect(r.started).toEqual(['a', 'b']);
    expect(slots.counts()).toEqual({ starting: 2, waiting: 1 });
  });

  it('a release starts the next waiting start', () => {
    const slots = new WorkerStartSlots(1);
    const r = recorder();
    const releaseA = slots.take(false, r.go('a'));
    slots.take(false, r.go('b'));
    slots.take(false, r.go('c'));
    releaseA();
    expect(r.started).toEqual(['a', 'b']);
    expect(slots.counts()).toEqual({ starting: 1, waiting: 1 });
  });

  it('an urgent start runs at once, past the limit, and counts against it', () => {
    const slots = new WorkerStartSlots(1);
    const r = recorder();
    const releaseA = slots.take(false, r.go('a'));
    slots.take(false, r.go('queued'));
    const releaseUrgent = slots.take(true, r.go('urgent'));
    expect(r.started).toEqual(['a', 'urgent']);
    expect(slots.counts()).toEqual({ starting: 2, waiting: 1 });
    // Still two running against a limit of one: the queued start waits for both to end.
    releaseA();
    expect(r.started).toEqual(['a', 'urgent']);
    releaseUrgent();
    expect(r.started).toEqual(['a', 'urgent', 'queued']);
  });

  it('counts the starts that waited and how long (a withdrawn wait is not one)', () => {
    const slots = new WorkerStartSlots(1);
    let t = 1000;
    slots.now = () => t;
    const r = recorder();
    const releaseA = slots.take(false, r.go('a'));
    const withdrawB = slots.take(false, r.go('b'));
    slots.take(false, r.go('c'));
    expect(slots.waits()).toEqual({ count: 0, seconds: 0 });
    t = 1250;
    withdrawB();
    releaseA();
    expect(r.started).toEqual(['a', 'c']);
    expect(slots.waits()).toEqual({ count: 1, seconds: 0.25 });
  });

  it('a withdrawn wait never starts and frees no slot', () => {
    const slots = new WorkerStartSlots(1);
    const r = recorder();
    const releaseA = slots.take(false, r.go('a'));
    const withdrawB = slots.take(false, r.go('b'));
    slots.take(false, r.go('c'));
    withdrawB();
    expect(slots.counts()).toEqual({ starting: 1, waiting: 1 });
    releaseA();
    expect(r.started).toEqual(['a', 'c']);
    expect(slots.counts()).toEqual({ starting: 1, waiting: 0 });
  });

  it('a second release of the same start does nothing', () => {
    const slots = new WorkerStartSlots(1);
    const r = recorder();
    const releaseA = slots.take(false, r.go('a'));
    slots.take(false, r.go('b'));
    slots.take(false, r.go('c'));
    releaseA();
    releaseA();
    expect(r.started).toEqual(['a', 'b']);
    expect(slots.counts()).toEqual({ starting: 1, waiting: 1 });
  });

  it('limit 0 starts everything at once', () => {
    const slots = new WorkerStartSlots(0);
    const r = recorder();
    for (const n of ['a', 'b', 'c', 'd']) slots.take(false, r.go(n));
    expect(r.started).toEqual(['a', 'b', 'c', 'd']);
    expect(slots.counts()).toEqual({ starting: 4, waiting: 0 });
  });

  it('never runs more than the limit besides urgent starts, whatever the order of takes and releases', () => {
    // A seeded walk: random takes (urgent or not), releases and withdrawals.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const limit of [1, 2, 3]) {
      const slots = new WorkerStartSlots(limit);
      let running = 0;
      let maxRunning = 0;
      const live: Array<{ release: () => void; started: boolean; over: boolean; urgent: boolean }> = [];
      for (let step = 0; step < 2000; step++) {
        const urgent = rand() < 0.1;
        if (rand() < 0.55 || !live.length) {
          const item: { release: () => void; started: boolean; over: boolean; urgent: boolean } = { release: () => undefined, started: false, over: false, urgent };
          item.release = slots.take(urgent, () => {
            expect(item.over).toBe(false);
            item.started = true;
            running++;
            maxRunning = Math.max(maxRunning, running);
          });
          live.push(item);
        } else {
          const [item] = live.splice(Math.floor(rand() * live.length), 1);
          if (item!.started) running--;
          item!.over = true;
          item!.release();
        }
        // Only urgent starts may run past the limit; work conservation: a free slot never sits
        // beside a waiting start.
        const urgentRunning = live.filter((x) => x.started && x.urgent).length;
        expect(running - urgentRunning).toBeLessThanOrEqual(limit);
        const { starting, waiting } = slots.counts();
        expect(starting).toBe(running);
        if (waiting > 0) expect(starting).toBeGreaterThanOrEqual(limit);
      }
      expect(maxRunning).toBeGreaterThanOrEqual(limit);
    }
  });

  it('refuses a limit that is not a whole number ≥ 0', () => {
    expect(() => new WorkerStartSlots(-1)).toThrow(/integer ≥ 0/);
    expect(() => new WorkerStartSlots(1.5)).toThrow(/integer ≥ 0/);
  });
});

import { describe, expect, it } from 'vitest';
import { SerialPass } from './serial-pass.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('SerialPass', () => {
  it('never overlaps passes and folds kicks during a pass into one more pass', async () => {
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    let release!: () => void;
    const runner = new SerialPass(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      passes++;
      await new Promise<void>((r) => (release = r));
      running--;
    }, () => {});
    runner.kick();
    await tick();
    for (let i = 0; i < 5; i++) runner.kick(); // five kicks while the first pass runs
    release();
    await tick();
    release();
    await tick();
    expect(passes).toBe(2);
    expect(maxRunning).toBe(1);
    await runner.stop(1000);
  });

  it('reports a failing pass and keeps serving later kicks; no pass after stop', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const runner = new SerialPass(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
    }, (err) => errors.push(err));
    runner.kick();
    await tick();
    runner.kick();
    await tick();
    expect(calls).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
    await runner.stop(1000);
    expect(runner.stopped).toBe(true);
    runner.kick();
    await tick();
    expect(calls).toBe(2);
  });
});

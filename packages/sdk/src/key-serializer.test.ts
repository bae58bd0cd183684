import { describe, expect, it } from 'vitest';
import { KeySerializer } from './key-serializer.ts';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeySerializer', () => {
  it('runs one key’s tasks one at a time in order, other keys beside them', async () => {
    const s = new KeySerializer();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) => async () => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([s.run('a', task('a1')), s.run('a', task('a2')), s.run('a', task('a3'))]);
    expect(results).toEqual(['a1', 'a2', 'a3']);
    expect(log).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(most).toBe(1);

    const both = await Promise.all([s.run('x', task('x')), s.run('y', task('y'))]);
    expect(both).toEqual(['x', 'y']);
    expect(log.slice(-4).sort()).toEqual(['end x', 'end y', 'start x', 'start y']);
    expect(log.indexOf('start y')).toBeLessThan(log.indexOf('end x'));
  });

  it('a failed task fails only its caller; the next one still runs; the map empties', async () => {
    const s = new KeySerializer();
    const failing = s.run('k', async () => {
      throw new Error('boom');
    });
    const next = s.run('k', async () => 'ok');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    await tick();
    expect(s.size).toBe(0);
  });
});

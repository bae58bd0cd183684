import { describe, expect, it } from 'vitest';
import { afterThisRead, handleRead } from './after-this-read.ts';

const chunk = Buffer.from('x');

describe('afterThisRead', () => {
  it('inside a read: runs when the receiver returns, before the promise callbacks it queued', async () => {
    const log: string[] = [];
    handleRead(() => {
      afterThisRead(() => log.push('deferred 1'));
      afterThisRead(() => log.push('deferred 2'));
      void Promise.resolve().then(() => log.push('microtask'));
      process.nextTick(() => log.push('tick'));
      log.push('receiver');
    }, chunk);
    expect(log).toEqual(['receiver', 'deferred 1', 'deferred 2']);
    await new Promise((r) => setImmediate(r));
    // (Which of these two runs first depends on whether the caller itself is in a microtask.)
    expect(log.slice(0, 3)).toEqual(['receiver', 'deferred 1', 'deferred 2']);
    expect(log.slice(3).sort()).toEqual(['microtask', 'tick']);
  });

  it('outside a read: runs on the next tick, not at once', async () => {
    const log: string[] = [];
    afterThisRead(() => log.push('deferred'));
    log.push('caller');
    expect(log).toEqual(['caller']);
    await new Promise((r) => process.nextTick(r));
    expect(log).toEqual(['caller', 'deferred']);
  });

  it('a receiver that throws: the deferred work still runs, the error still reaches the caller, and the next read starts clean', () => {
    const log: string[] = [];
    expect(() =>
      handleRead(() => {
        afterThisRead(() => log.push('deferred'));
        throw new Error('boom');
      }, chunk),
    ).toThrow('boom');
    expect(log).toEqual(['deferred']);
    handleRead(() => afterThisRead(() => log.push('second read')), chunk);
    expect(log).toEqual(['deferred', 'second read']);
  });

  it('work deferred by deferred work runs on the next tick (the read is over)', async () => {
    const log: string[] = [];
    handleRead(() => afterThisRead(() => afterThisRead(() => log.push('again'))), chunk);
    expect(log).toEqual([]);
    await new Promise((r) => process.nextTick(r));
    expect(log).toEqual(['again']);
  });
});

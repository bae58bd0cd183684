import { describe, expect, it } from 'vitest';
import { RawRequestBody } from './raw-request-body.ts';

function setup(): { body: RawRequestBody; log: string[] } {
  const log: string[] = [];
  const body = new RawRequestBody({ pauseReading: () => log.push('pause socket'), resumeReading: () => log.push('resume socket') });
  return { body, log };
}
const tick = (): Promise<void> => new Promise((r) => process.nextTick(r));

describe('RawRequestBody', () => {
  it('holds what arrives before a reader attaches (and stops the socket), then flows it in order', async () => {
    const { body, log } = setup();
    body.push(Buffer.from('ab'));
    body.push(Buffer.from('cd'));
    body.finish();
    expect(new Set(log)).toEqual(new Set(['pause socket']));
    const got: string[] = [];
    body.on('data', (c) => got.push(c.toString()));
    body.on('end', () => got.push('end'));
    expect(got).toEqual([]); // not before the next tick: 'end' and 'error' attach first
    expect(body.didRead).toBe(false);
    await tick();
    expect(got).toEqual(['ab', 'cd', 'end']);
    expect(body.didRead).toBe(true);
  });

  it('passes chunks straight through while flowing, and pauses the socket when the reader pauses', async () => {
    const { body, log } = setup();
    const got: string[] = [];
    body.on('data', (c) => {
      got.push(c.toString());
      if (got.length === 1) body.pause();
    });
    await tick();
    log.length = 0;
    body.push(Buffer.from('1'));
    body.push(Buffer.from('2'));
    expect(got).toEqual(['1']);
    // Asked once per held chunk; the connection pauses the socket once.
    expect(new Set(log)).toEqual(new Set(['pause socket']));
    body.resume();
    expect(got).toEqual(['1', '2']);
    expect(log.at(-1)).toBe('resume socket');
  });

  it('fails with an error (no throw without a listener), and drop silences it', async () => {
    const a = setup().body;
    expect(() => a.fail(new Error('aborted'))).not.toThrow();
    const b = setup().body;
    const errors: string[] = [];
    b.on('error', (e) => errors.push(e.message));
    b.fail(new Error('aborted'));
    b.fail(new Error('twice'));
    expect(errors).toEqual(['aborted']);
    const c = setup().body;
    const seen: string[] = [];
    c.on('data', (x) => seen.push(x.toString()));
    c.on('end', () => seen.push('end'));
    await tick();
    c.drop();
    c.push(Buffer.from('late'));
    c.finish();
    expect(seen).toEqual([]);
  });

  it('a later listener replaces the earlier one (a retried upstream attempt)', async () => {
    const { body } = setup();
    const first: string[] = [];
    const second: string[] = [];
    body.on('data', (c) => first.push(c.toString()));
    body.on('data', (c) => second.push(c.toString()));
    await tick();
    body.push(Buffer.from('x'));
    expect(first).toEqual([]);
    expect(second).toEqual(['x']);
  });
});

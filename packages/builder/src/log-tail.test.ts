import { describe, expect, it } from 'vitest';
import { LogTail } from './log-tail.ts';

describe('LogTail', () => {
  it('keeps everything under the limit', () => {
    const tail = new LogTail(100);
    tail.push('a\n');
    tail.push('b\n');
    expect(tail.toString()).toBe('a\nb\n');
  });

  it('keeps the last bytes, starting at a whole line', () => {
    const tail = new LogTail(20);
    for (let i = 0; i < 100; i++) tail.push(`line ${i}\n`);
    const text = tail.toString();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(20);
    expect(text.startsWith('line')).toBe(true);
    expect(text.endsWith('line 99\n')).toBe(true);
  });

  it('never cuts a multi-byte character in half', () => {
    const tail = new LogTail(7);
    tail.push('ééééééééé');
    const text = tail.toString();
    expect(text).toMatch(/^é+$/);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(7);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminationMessage } from './termination-message.ts';

const dir = mkdtempSync(join(tmpdir(), 'termination-'));
const file = (name: string, content: string) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

describe('terminationMessage', () => {
  it('is what the container wrote, capped at 4096 bytes, whatever the policy and exit', () => {
    expect(terminationMessage(file('m1', '{"phase":"Succeeded"}'), 'File', 0, file('l1', 'log'))).toBe('{"phase":"Succeeded"}');
    expect(terminationMessage(file('m2', 'x'.repeat(5000)), 'FallbackToLogsOnError', 1, file('l2', 'log'))?.length).toBe(4096);
  });

  it('falls back to the log tail (80 lines, 2048 bytes) only for FallbackToLogsOnError and a failed exit', () => {
    const log = file('l3', Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n');
    const tail = terminationMessage(file('m3', ''), 'FallbackToLogsOnError', 2, log)!;
    expect(tail.split('\n')).toHaveLength(80);
    expect(tail.endsWith('line 199')).toBe(true);
    expect(terminationMessage(file('m4', ''), 'FallbackToLogsOnError', 0, log)).toBeUndefined();
    expect(terminationMessage(file('m5', ''), 'File', 2, log)).toBeUndefined();
  });

  it('is undefined when the files are missing', () => {
    expect(terminationMessage(join(dir, 'none'), 'FallbackToLogsOnError', 1, join(dir, 'none.log'))).toBeUndefined();
  });
});

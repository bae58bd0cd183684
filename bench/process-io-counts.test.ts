import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processIoCounts } from './process-io-counts.ts';

describe('processIoCounts', () => {
  it("counts this process's read and write system calls as they happen", () => {
    const before = processIoCounts(process.pid);
    const out = openSync('/dev/null', 'w');
    for (let i = 0; i < 50; i++) writeSync(out, 'x');
    closeSync(out);
    const zero = openSync('/dev/zero', 'r');
    const buf = Buffer.alloc(8);
    for (let i = 0; i < 30; i++) readSync(zero, buf);
    closeSync(zero);
    const after = processIoCounts(process.pid);
    expect(after.writes - before.writes).toBeGreaterThanOrEqual(50);
    expect(after.reads - before.reads).toBeGreaterThanOrEqual(30);
    expect(after.sleeps).toBeGreaterThanOrEqual(before.sleeps);
  });

  it('names the process when there is none', () => {
    expect(() => processIoCounts(2 ** 22 + 12345)).toThrow(/ENOENT/);
  });
});

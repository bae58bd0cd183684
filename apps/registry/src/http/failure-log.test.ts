import { describe, expect, it } from 'vitest';
import { FailureLog } from './failure-log.ts';

describe('FailureLog', () => {
  it('writes the request id, route, code and detail on one line, with the request id as reqId', () => {
    const lines: string[] = [];
    const fields: unknown[] = [];
    new FailureLog((l, f) => (lines.push(l), fields.push(f))).failed('req-1', 'register', 'propose_failed', 'GRPCDeadlineExceededError: 4 DEADLINE_EXCEEDED\nmore');
    expect(lines).toEqual(['request req-1 (register) answered propose_failed: GRPCDeadlineExceededError: 4 DEADLINE_EXCEEDED more']);
    expect(fields).toEqual([{ reqId: 'req-1', route: 'register', code: 'propose_failed' }]);
  });

  it('writes at most `burst` lines per window, then counts the rest when the next window opens', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new FailureLog((l) => lines.push(l), 3, 1000, () => now);
    for (let i = 0; i < 10; i++) log.failed(`r${i}`, 'instances', 'read_failed', 'down');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['r0', 'r1', 'r2']);
    now = 1000;
    log.failed('r10', 'instances', 'read_failed', 'down');
    expect(lines.slice(3)).toEqual(['7 more failed requests not logged in 1 s', 'request r10 (instances) answered read_failed: down']);
  });
});

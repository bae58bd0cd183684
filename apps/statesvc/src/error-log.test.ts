import { describe, expect, it } from 'vitest';
import { StateStoreError } from '@orrery/statestore';
import { ErrorLog, errorDetail, escapeForLog, MAX_DETAIL, redactSecrets } from './error-log.ts';

describe('redactSecrets', () => {
  it('cuts passwords in URLs, key=value secrets, bearer tokens, long hex and drizzle params', () => {
    expect(redactSecrets('connect to postgres://orrery:s3cr3t@db:5432/state failed')).toBe('connect to postgres://orrery:***@db:5432/state failed');
    expect(redactSecrets('redis://:pw@r:6379 and rediss://u:p%40ss@h')).toBe('redis://:***@r:6379 and rediss://u:***@h');
    expect(redactSecrets('postgres://orrery@db/state')).toBe('postgres://orrery@db/state'); // no password: nothing to cut
    expect(redactSecrets('password=hunter2 token: abc, secret="x y" api_key=k')).toBe('password=*** token: ***, secret=*** api_key=***');
    expect(redactSecrets('Authorization: Bearer abc.def')).toBe('Authorization: Bearer ***');
    expect(redactSecrets(`token ${'ab12'.repeat(16)} end`)).toBe('token *** end');
    expect(redactSecrets('Failed query: select key from state_entries where key > $4\nparams: default,cart,17,secret-key,101')).toBe(
      'Failed query: select key from state_entries where key > $4\nparams: [redacted]',
    );
  });
});

describe('escapeForLog', () => {
  it('escapes control characters and indents continuation lines, so no log line can be forged', () => {
    expect(escapeForLog('a\u0000b\u001b[31m\rc')).toBe('a\\u0000b\\u001b[31m\\u000dc');
    expect(escapeForLog('one\n[statesvc] forged')).toBe('one\n    [statesvc] forged');
    expect(escapeForLog('x\r\ny\u2028z')).toBe('x\n    y\\u2028z');
  });
});

describe('errorDetail', () => {
  it('message, own stack frames and causes; redacted, escaped, bounded', () => {
    const db = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    const wrapped = new Error('Failed query: select 1\nparams: \u0000secret', { cause: db });
    const err = new StateStoreError('capability_unavailable', 'state database unavailable', undefined, { cause: wrapped });
    const d = errorDetail(err);
    expect(d).toMatch(/^StateStoreError \[capability_unavailable\]: state database unavailable\n {4}at /);
    expect(d).toContain('caused by: Error: Failed query: select 1');
    expect(d).toContain('params: [redacted]');
    expect(d).toContain('caused by: Error [22021]: invalid byte sequence');
    expect(d).not.toContain('secret');
    expect(d).not.toMatch(/\u0000/);
    expect(d.split('\n').filter((l) => /^\S/.test(l)).every((l) => /^(StateStoreError|caused by)/.test(l))).toBe(true);
    expect(errorDetail(new Error('x'.repeat(10_000))).length).toBeLessThan(MAX_DETAIL + 60);
    expect(errorDetail('a string')).toBe('a string');
    expect(errorDetail(42n)).toBe('bigint');
    expect(errorDetail({ a: 1 })).toBe('object {"a":1}');
  });
});

describe('ErrorLog', () => {
  it('logs at most `burst` entries per code per window and says how many it left out', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new ErrorLog((l) => lines.push(l), 2, 1000, () => now);
    for (let i = 0; i < 5; i++) log.report('capability_unavailable', new Error(`down ${i}`));
    log.report('internal', new Error('bug'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^capability_unavailable: Error: down 0/);
    expect(lines[2]).toMatch(/^internal error: Error: bug/);
    now = 1000;
    log.report('capability_unavailable', new Error('down again'));
    expect(lines[3]).toMatch(/down again[\s\S]*\(3 more like it not logged\)$/);
    log.report('capability_unavailable', new Error('once more'));
    expect(lines[4]).not.toMatch(/not logged/);
  });
});

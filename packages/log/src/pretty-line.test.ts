import { describe, expect, it } from 'vitest';
import { prettyLine } from './pretty-line.ts';

const record = { level: 'warn', time: '2026-12-02T05:40:01.123Z', component: 'router', reqId: 'r-1', port: 8080, msg: 'slow upstream' };

describe('prettyLine', () => {
  it('time, level, component, request id, message, then the other fields', () => {
    expect(prettyLine(JSON.stringify(record), false)).toBe('05:40:01.123 WARN  router [r-1] slow upstream {"port":8080}\n');
  });

  it('colors the level on a terminal', () => {
    expect(prettyLine(JSON.stringify(record), true)).toContain('\u001b[33mWARN \u001b[0m');
  });

  it('leaves out what a record does not have', () => {
    expect(prettyLine(JSON.stringify({ level: 'info', time: record.time, component: 'statesvc', msg: 'ready' }), false)).toBe('05:40:01.123 INFO  statesvc ready\n');
  });

  it('passes a line that is not JSON through', () => {
    expect(prettyLine('not json', false)).toBe('not json\n');
  });
});

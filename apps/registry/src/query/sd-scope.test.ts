import { describe, expect, it } from 'vitest';
import { parseSdScope } from './sd-scope.ts';

const parse = (qs: string) => parseSdScope(new URLSearchParams(qs));

describe('parseSdScope', () => {
  it.each(['', 'scope=', 'scope=local'])('%s is the local view', (qs) => {
    expect(parse(qs)).toEqual({ ok: true, value: 'local' });
  });

  it('merged is merged', () => {
    expect(parse('scope=merged')).toEqual({ ok: true, value: 'merged' });
  });

  it.each(['global', 'LOCAL', 'x'.repeat(100)])('anything else (%s) is refused, echoed briefly', (v) => {
    const r = parse(`scope=${v}`);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^scope must be local or merged, got "/);
    expect(!r.ok && r.message.length).toBeLessThan(100);
  });
});

import { describe, expect, it } from 'vitest';
import { MERGED_SCOPE_NOT_BUILT, parseSdScope } from './sd-scope.ts';

const parse = (qs: string) => parseSdScope(new URLSearchParams(qs));

describe('parseSdScope', () => {
  it.each(['', 'scope=', 'scope=local'])('%s is the local view', (qs) => {
    expect(parse(qs)).toEqual({ ok: true, value: 'local' });
  });

  it('merged is refused with the stable replication_not_built code, saying what to do', () => {
    expect(parse('scope=merged')).toEqual({ ok: false, message: MERGED_SCOPE_NOT_BUILT });
    expect(MERGED_SCOPE_NOT_BUILT).toMatch(/^replication_not_built: .*use scope=local/);
  });

  it.each(['global', 'LOCAL', 'x'.repeat(100)])('anything else (%s) is refused, echoed briefly', (v) => {
    const r = parse(`scope=${v}`);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^scope must be local \(merged is not built\), got "/);
    expect(!r.ok && r.message.length).toBeLessThan(100);
  });
});

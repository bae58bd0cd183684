import { describe, expect, it } from 'vitest';
import { formatTraceparent, formatTracestate, isSampled, MAX_TRACESTATE_MEMBERS, parseTraceparent, parseTracestate } from './trace-context.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads a version-00 header (the spec example)', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 0 });
  });

  it('tolerates surrounding whitespace (optional whitespace of a header value)', () => {
    expect(parseTraceparent(`  00-${TRACE}-${SPAN}-01 `)?.spanId).toBe(SPAN);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['non-hex trace id', `00-${TRACE.slice(0, 31)}g-${SPAN}-01`],
    ['non-hex flags', `00-${TRACE}-${SPAN}-0x`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['long span id', `00-${TRACE}-${SPAN}0-01`],
    ['version 00 with a suffix', `00-${TRACE}-${SPAN}-01-extra`],
    ['version ff (forbidden)', `ff-${TRACE}-${SPAN}-01`],
    ['bad version', `0g-${TRACE}-${SPAN}-01`],
    ['wrong separators', `00_${TRACE}_${SPAN}_01`],
    ['a higher version glued to more text', `01-${TRACE}-${SPAN}-01x`],
  ])('refuses %s', (_what, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('reads a higher version by its version-00 prefix', () => {
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-01-what-the-future-brings`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
  });

  it('keeps the flags byte; sampled is bit 0', () => {
    const p = parseTraceparent(`00-${TRACE}-${SPAN}-03`)!;
    expect(p.flags).toBe(3);
    expect(isSampled(p)).toBe(true);
    expect(isSampled(parseTraceparent(`00-${TRACE}-${SPAN}-02`)!)).toBe(false);
  });
});

describe('formatTraceparent', () => {
  it('writes version 00 with the sampled bit only, and round-trips', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, flags: 1 })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, flags: 0xfe })).toBe(`00-${TRACE}-${SPAN}-00`);
    const header = `00-${TRACE}-${SPAN}-01`;
    expect(formatTraceparent(parseTraceparent(header)!)).toBe(header);
  });

  it('refuses ids no parser would accept', () => {
    expect(() => formatTraceparent({ traceId: '0'.repeat(32), spanId: SPAN, flags: 1 })).toThrow(/trace id/);
    expect(() => formatTraceparent({ traceId: TRACE, spanId: 'xyz', flags: 1 })).toThrow(/span id/);
  });
});

describe('tracestate', () => {
  it('reads members in order, skipping empty ones, and writes them back', () => {
    const s = parseTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,tenant@vendor=x y')!;
    expect(s).toEqual([
      ['rojo', '00f067aa0ba902b7'],
      ['congo', 't61rcWkgMzE'],
      ['tenant@vendor', 'x y'],
    ]);
    expect(formatTracestate(s)).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE,tenant@vendor=x y');
    expect(parseTracestate('')).toEqual([]);
  });

  it.each([
    ['a member without "="', 'rojo'],
    ['an empty key', '=v'],
    ['an upper-case key', 'Rojo=1'],
    ['a key starting with a digit (not multi-tenant)', '1abc=1'],
    ['a repeated key', 'a=1,a=2'],
    ['a value with "="', 'a=b=c'],
    ['an empty value', 'a='],
    ['a value over 256 characters', `a=${'x'.repeat(257)}`],
    ['a control character', 'a=\u0007'],
  ])('drops the whole header for %s', (_what, header) => {
    expect(parseTracestate(header)).toBeUndefined();
  });

  it(`allows ${MAX_TRACESTATE_MEMBERS} members and no more`, () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
    expect(parseTracestate(members(MAX_TRACESTATE_MEMBERS))).toHaveLength(MAX_TRACESTATE_MEMBERS);
    expect(parseTracestate(members(MAX_TRACESTATE_MEMBERS + 1))).toBeUndefined();
  });

  it('allows a 256-character value', () => {
    expect(parseTracestate(`a=${'x'.repeat(256)}`)).toHaveLength(1);
  });
});

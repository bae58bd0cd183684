import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cookieInLine, cookieValue, queryValue } from './sticky-key.ts';

describe('cookieValue (RFC 6265 Cookie header)', () => {
  const cases: Array<[string, string[], string, string | undefined]> = [
    ['one cookie', ['Cookie', 'sid=abc'], 'sid', 'abc'],
    ['among others, with the usual "; "', ['Cookie', 'a=1; sid=abc; b=2'], 'sid', 'abc'],
    ['without a space after ";"', ['Cookie', 'a=1;sid=abc;b=2'], 'sid', 'abc'],
    ['last in the line', ['Cookie', 'a=1; sid=abc'], 'sid', 'abc'],
    ['header name in any case', ['cOOKIE', 'sid=abc'], 'sid', 'abc'],
    ['cookie names are case-sensitive', ['Cookie', 'SID=upper; sid=lower'], 'sid', 'lower'],
    ['absent', ['Cookie', 'a=1; b=2'], 'sid', undefined],
    ['no Cookie header', ['Host', 'x', 'X-Sid', 'abc'], 'sid', undefined],
    ['a longer name that starts with it is another cookie', ['Cookie', 'sidx=1; xsid=2; sid=3'], 'sid', '3'],
    ['a pair without "=" is skipped', ['Cookie', 'sid; sid=abc'], 'sid', 'abc'],
    ['the first of two pairs wins', ['Cookie', 'sid=first; sid=second'], 'sid', 'first'],
    ['split over several Cookie lines (HTTP/2 → 1.1)', ['Cookie', 'a=1', 'Accept', '*/*', 'cookie', 'sid=abc'], 'sid', 'abc'],
    ['the first line with it wins', ['Cookie', 'sid=one', 'Cookie', 'sid=two'], 'sid', 'one'],
    ['empty value', ['Cookie', 'sid=; a=1'], 'sid', ''],
    ['quoted value loses its quotes', ['Cookie', 'sid="abc"'], 'sid', 'abc'],
    ['empty quoted value', ['Cookie', 'sid=""'], 'sid', ''],
    ['a lone quote is kept', ['Cookie', 'sid="'], 'sid', '"'],
    ['whitespace around name, "=" and value is dropped', ['Cookie', '  sid \t=  abc \t; a=1'], 'sid', 'abc'],
    ['"=" inside the value is kept', ['Cookie', 'sid=a=b=c'], 'sid', 'a=b=c'],
    ['no percent-decoding', ['Cookie', 'sid=a%20b'], 'sid', 'a%20b'],
    ['empty segments', ['Cookie', ';; ;sid=abc;;'], 'sid', 'abc'],
    ['empty header value', ['Cookie', ''], 'sid', undefined],
    ['obs-text bytes as the ingress decoded them', ['Cookie', 'sid=\u00e9t\u00e9'], 'sid', '\u00e9t\u00e9'],
    ['a name with token punctuation', ['Cookie', "a=1; __Host-s.i_d!#$%&'*+^`|~=v"], "__Host-s.i_d!#$%&'*+^`|~", 'v'],
  ];
  it.each(cases)('%s', (_name, raw, cookie, want) => {
    expect(cookieValue(raw, cookie)).toBe(want);
  });

  /** The plain reading of RFC 6265 §5.4 with the leniencies above, by splitting: the oracle. */
  const reference = (line: string, name: string): string | undefined => {
    for (const pair of line.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      if (pair.slice(0, eq).replace(/^[ \t]+|[ \t]+$/g, '') !== name) continue;
      const v = pair.slice(eq + 1).replace(/^[ \t]+|[ \t]+$/g, '');
      return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
    }
    return undefined;
  };
  it('agrees with a split-based reading on arbitrary lines', () => {
    const piece = fc.constantFrom('sid', 'sidx', 'xsid', 'a', '=', ';', '; ', ' ', '\t', '"', 'v', '==', 'SID');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (parts) => {
        const line = parts.join('');
        expect(cookieInLine(line, 'sid')).toBe(reference(line, 'sid'));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('queryValue', () => {
  it('reads the first occurrence, decoded', () => {
    expect(queryValue('/p?a=1&sid=x%20y&sid=2', 'sid')).toBe('x y');
    expect(queryValue('/p?a=1', 'sid')).toBeUndefined();
    expect(queryValue('/p', 'sid')).toBeUndefined();
    expect(queryValue('/p?sid=', 'sid')).toBe('');
  });
});

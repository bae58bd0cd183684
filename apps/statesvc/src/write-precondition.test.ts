import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.ts';
import { writePrecondition } from './write-precondition.ts';

type Headers = Parameters<typeof writePrecondition>[0];
const outcome = (h: Headers, cas?: number): number | undefined | string => {
  try {
    return writePrecondition(h, cas);
  } catch (e) {
    return e instanceof HttpError ? e.code : 'other';
  }
};

describe('writePrecondition', () => {
  it.each<[string, Headers, number | undefined, number | undefined | string]>([
    ['nothing: unconditional', {}, undefined, undefined],
    ['If-Match alone', { ifMatch: '7' }, undefined, 7],
    ['If-Match quoted', { ifMatch: '"7"' }, undefined, 7],
    ['X-Orrery-State-Version alone (the seed: a precondition, not ignored)', { version: '7' }, undefined, 7],
    ['X-Orrery-State-Version 0 = create only', { version: '0' }, undefined, 0],
    ['both, the same version', { ifMatch: '"7"', version: '7' }, undefined, 7],
    ['both, different versions', { ifMatch: '7', version: '8' }, undefined, 'bad_request'],
    ['both, create-only against a version', { ifMatch: '0', version: '8' }, undefined, 'bad_request'],
    ['version header not a number', { version: 'abc' }, undefined, 'bad_request'],
    ['version header negative', { version: '-1' }, undefined, 'bad_request'],
    ['version header twice', { version: ['1', '1'] }, undefined, 'bad_request'],
    ['If-Match twice', { ifMatch: ['1', '2'] }, undefined, 'bad_request'],
    ['If-Match bad', { ifMatch: '*' }, undefined, 'bad_request'],
    ['CAS body alone', {}, 3, 3],
    ['CAS create-only alone', {}, 0, 0],
    ['CAS body and the same header', { version: '3' }, 3, 3],
    ['CAS body and a different version header', { version: '4' }, 3, 'bad_request'],
    ['CAS body and a different If-Match', { ifMatch: '0' }, 3, 'bad_request'],
  ])('%s', (_name, headers, cas, expected) => {
    expect(outcome(headers, cas)).toBe(expected);
  });

  it('agrees with the headers whenever they agree, refuses whenever they differ', () => {
    const v = fc.option(fc.nat({ max: 1e12 }), { nil: undefined });
    fc.assert(
      fc.property(v, v, v, fc.boolean(), (a, b, cas, quote) => {
        const headers: Headers = {
          ifMatch: a === undefined ? undefined : quote ? `"${a}"` : String(a),
          version: b === undefined ? undefined : String(b),
        };
        const given = [a, b, cas].filter((x): x is number => x !== undefined);
        const expected = new Set(given).size > 1 ? 'bad_request' : given[0];
        expect(outcome(headers, cas)).toBe(expected);
      }),
    );
  });
});

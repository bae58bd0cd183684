import { describe, expect, it } from 'vitest';
import { matches, parseLegacyLabel, parseSelector, SelectorError } from './selector.ts';

describe('selector grammar', () => {
  it('parses every form of the seed', () => {
    expect(parseSelector('color=gray,version in (v2),!deprecated')).toEqual([
      { op: 'eq', key: 'color', value: 'gray' },
      { op: 'in', key: 'version', values: ['v2'] },
      { op: 'notExists', key: 'deprecated' },
    ]);
    expect(parseSelector('env notin (test,dev),tier!=edge,canary')).toEqual([
      { op: 'notin', key: 'env', values: ['test', 'dev'] },
      { op: 'neq', key: 'tier', value: 'edge' },
      { op: 'exists', key: 'canary' },
    ]);
    expect(parseSelector('orrery.dev/function=counter')).toEqual([{ op: 'eq', key: 'orrery.dev/function', value: 'counter' }]);
  });

  it.each([
    ['version in v2', 'expected values like (v1,v2)'],
    ['color=', 'missing value for "color"'],
    ['color=gray,,version=v2', 'empty expression'],
    ['color=gray,', 'empty expression'],
    ['version in (v2', 'unbalanced "("'],
    ['a b', 'cannot parse'],
  ])('rejects %s with the seed message shape', (sel, reason) => {
    let err: unknown;
    try {
      parseSelector(sel);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SelectorError);
    const msg = (err as Error).message;
    expect(msg).toContain(`invalid selector "${sel}"`);
    expect(msg).toContain(reason);
    expect(msg).toContain('supported selector syntax: key, !key, key=value, key!=value, key in (v1,v2), key notin (v1,v2)');
    expect(msg).toContain('valid example: selector=color=gray,version in (v2),!deprecated');
    expect(msg).toContain('invalid example: selector=version in v2');
  });

  it('matches labels with Kubernetes semantics', () => {
    const labels = { color: 'gray', version: 'v2' };
    expect(matches(labels, parseSelector('color=gray,version in (v2),!deprecated'))).toBe(true);
    expect(matches(labels, parseSelector('color!=gray'))).toBe(false);
    expect(matches(labels, parseSelector('tier!=core'))).toBe(true);
    expect(matches(labels, parseSelector('version notin (v1,v2)'))).toBe(false);
    expect(matches(labels, parseSelector('env notin (test)'))).toBe(true);
    expect(matches(labels, parseSelector('env in (prod)'))).toBe(false);
    expect(matches(labels, parseSelector('color'))).toBe(true);
    expect(matches(labels, parseSelector('!color'))).toBe(false);
  });

  it('parses the legacy label=k=v parameter', () => {
    expect(parseLegacyLabel('color=gray')).toEqual({ op: 'eq', key: 'color', value: 'gray' });
    expect(() => parseLegacyLabel('color')).toThrow(/expected key=value/);
  });
});

import { describe, expect, it } from 'vitest';
import { LabelParamError, parseLabelParams } from './label-params.ts';

describe('parseLabelParams', () => {
  it('reads key=value parameters into labels; none is no filter', () => {
    expect(parseLabelParams([])).toBeUndefined();
    expect(parseLabelParams(['app=web', 'tier=front'])).toEqual({ app: 'web', tier: 'front' });
  });

  it('keeps everything after the first "=" as the value, and an empty value as empty', () => {
    expect(parseLabelParams(['a=b=c'])).toEqual({ a: 'b=c' });
    expect(parseLabelParams(['a='])).toEqual({ a: '' });
  });

  it('accepts the same label repeated with the same value', () => {
    expect(parseLabelParams(['a=1', 'a=1'])).toEqual({ a: '1' });
  });

  it.each([
    [['app'], /has no value/],
    [['=web'], /empty key/],
    [['a=1', 'a=2'], /given twice/],
  ])('refuses %j with a 400 that says how to write it', (params, message) => {
    let err: unknown;
    try {
      parseLabelParams(params);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LabelParamError);
    expect((err as LabelParamError).status).toBe(400);
    expect((err as LabelParamError).code).toBe('invalid_label_selector');
    expect((err as LabelParamError).message).toMatch(message);
  });

  it('does not take "__proto__" as the object prototype', () => {
    const labels = parseLabelParams(['__proto__=x']);
    expect(Object.keys(labels ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });
});

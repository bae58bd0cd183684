import { describe, expect, it } from 'vitest';
import { valuesLeaves, valuesPathExists, valuesReferences } from './values-paths.ts';

describe('values paths', () => {
  it('finds .Values chains in actions, through $ and .root, but not in strings or comments', () => {
    const text = [
      '{{- if .Values.a.b }}',
      'x: {{ $.Values.c | default ".Values.not" }} {{ include "t" (dict "root" .) }}',
      '{{/* .Values.comment */}}',
      'y: {{ .root.Values.d.e_f }}',
      'plain .Values.text outside actions',
    ].join('\n');
    expect(valuesReferences(text)).toEqual([
      { path: ['a', 'b'], line: 1 },
      { path: ['c'], line: 2 },
      { path: ['d', 'e_f'], line: 4 },
    ]);
  });

  it('checks paths against a values tree and lists its leaves', () => {
    const values = { a: { b: 1, list: [1], empty: {} }, c: '' };
    expect(valuesPathExists(values, ['a', 'b'])).toBe(true);
    expect(valuesPathExists(values, ['a', 'x'])).toBe(false);
    expect(valuesPathExists(values, ['c', 'x'])).toBe(false);
    expect(valuesLeaves(values)).toEqual([['a', 'b'], ['a', 'list'], ['a', 'empty'], ['c']]);
  });
});

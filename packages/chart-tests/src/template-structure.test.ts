import { describe, expect, it } from 'vitest';
import { splitTemplate } from './template-actions.ts';
import { balanceProblems, definedTemplates, includedTemplates, valuesLeaves, valuesPathExists, valuesReferences } from './template-structure.ts';

describe('splitTemplate', () => {
  it('finds actions with their lines, trim markers and comments', () => {
    const pieces = splitTemplate('a: {{ .Values.a }}\n{{- /* note */ -}}\nb: {{- include "x" . -}}\n');
    const actions = pieces.flatMap((p) => (p.kind === 'action' ? [p.action] : []));
    expect(actions.map((a) => [a.body, a.line, a.trimLeft, a.trimRight, a.isComment])).toEqual([
      ['.Values.a', 1, false, false, false],
      ['/* note */', 2, true, true, true],
      ['include "x" .', 3, true, true, false],
    ]);
  });

  it('does not end an action at "}}" inside a string literal', () => {
    const pieces = splitTemplate('{{ printf "}}" }}');
    expect(pieces).toEqual([{ kind: 'action', action: expect.objectContaining({ body: 'printf "}}"' }) }]);
  });
});

describe('balanceProblems', () => {
  it('accepts nested blocks with else and else if', () => {
    const text = '{{ if .a }}{{ range .b }}{{ with .c }}x{{ else }}y{{ end }}{{ end }}{{ else if .d }}z{{ else }}w{{ end }}{{ define "n" }}{{ end }}';
    expect(balanceProblems(text)).toEqual([]);
  });

  it.each([
    ['{{ if .a }}x', 'line 1: "if" is never closed by "end"'],
    ['x{{ end }}', 'line 1: "end" without an open block'],
    ['{{ else }}', 'line 1: "else" outside if/with/range'],
    ['{{ include "a" (dict "b" .) }}\n{{ default (x .Values.a }}', 'line 2: unclosed "("'],
    ['{{ .Values.a ', 'line 1: unclosed action "{{"'],
    ['{{ printf "abc }}', 'line 1: unclosed string literal'],
    ['{{ define "x" }}{{ end }}{{ }}', 'line 1: empty action'],
  ])('reports %j', (text, problem) => {
    expect(balanceProblems(text)).toContain(problem);
  });
});

describe('valuesReferences', () => {
  it('finds .Values chains also through .root and $, ignoring strings and comments', () => {
    const text = '{{ .Values.a.b }}\n{{ $.Values.c }} {{ .root.Values.d.e_f | quote }}\n{{ printf ".Values.nope" }}{{/* .Values.comment */}}';
    expect(valuesReferences(text)).toEqual([
      { path: ['a', 'b'], line: 1 },
      { path: ['c'], line: 2 },
      { path: ['d', 'e_f'], line: 2 },
    ]);
  });

  it('checks paths against nested objects, not arrays or missing keys', () => {
    const values = { a: { b: 0, list: [1] }, empty: {} };
    expect(valuesPathExists(values, ['a', 'b'])).toBe(true);
    expect(valuesPathExists(values, ['empty'])).toBe(true);
    expect(valuesPathExists(values, ['a', 'c'])).toBe(false);
    expect(valuesPathExists(values, ['a', 'b', 'c'])).toBe(false);
    expect(valuesPathExists(values, ['a', 'list', 'length'])).toBe(false);
    expect(valuesPathExists(values, ['toString'])).toBe(false);
  });
});

describe('valuesLeaves', () => {
  it('lists scalar, list and empty-map leaves', () => {
    expect(valuesLeaves({ a: { b: 1, c: [1, 2], d: {} }, e: '' })).toEqual([['a', 'b'], ['a', 'c'], ['a', 'd'], ['e']]);
  });
});

describe('named templates', () => {
  it('lists defines and includes', () => {
    const text = '{{- define "a.b" -}}{{ include "c" . | nindent 2 }}{{ template "d" . }}{{- end -}}';
    expect(definedTemplates(text)).toEqual(['a.b']);
    expect(includedTemplates(text)).toEqual(['c', 'd']);
  });
});

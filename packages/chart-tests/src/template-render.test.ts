import { describe, expect, it } from 'vitest';
import { parseTemplate, Renderer, TemplateRenderError } from './template-render.ts';

function render(text: string, data: unknown, helpers = ''): string {
  const main = parseTemplate(text);
  const defines = new Map([...parseTemplate(helpers).defines, ...main.defines]);
  return new Renderer({ defines }).renderRoot(main.nodes, data);
}

describe('subset renderer', () => {
  it('applies trim markers like Go templates', () => {
    expect(render('a:\n  {{- " b" }}\nc: {{ "d" -}}\n   e', {})).toBe('a: b\nc: de');
  });

  it('evaluates if / else if / else, with and range with variables', () => {
    const data = { a: false, b: 2, items: ['x', 'y'], m: { z: 1, y: 2 }, w: { name: 'n' } };
    expect(render('{{ if .a }}A{{ else if eq .b 2 }}B{{ else }}C{{ end }}', data)).toBe('B');
    expect(render('{{ with .w }}{{ .name }}{{ end }}{{ with .a }}no{{ else }}none{{ end }}', data)).toBe('nnone');
    expect(render('{{ range $i, $v := .items }}{{ $i }}={{ $v }};{{ end }}', data)).toBe('0=x;1=y;');
    expect(render('{{ range $k, $v := .m }}{{ $k }}{{ $v }}{{ end }}', data)).toBe('y2z1');
    expect(render('{{ range .items }}[{{ . }}|{{ $.b }}]{{ end }}', data)).toBe('[x|2][y|2]');
  });

  it('keeps variables in scope and lets = assign an outer variable', () => {
    expect(render('{{ $l := list "a" }}{{ if true }}{{ $l = append $l "b" }}{{ end }}{{ join "," $l }}', {})).toBe('a,b');
  });

  it('renders include, dict, pipes, nindent, toYaml, default, printf and quote', () => {
    const helpers = '{{- define "x" -}}name: {{ .n | default "d" | quote }}{{- end -}}';
    expect(render('k:{{ include "x" (dict "n" .v) | nindent 2 }}', { v: '' }, helpers)).toBe('k:\n  name: "d"');
    expect(render('{{ toYaml .o | indent 2 }}', { o: { a: [1] } })).toBe('  a:\n    - 1');
    expect(render('{{ printf "%s-%v" "a" 3 | trunc 3 }}', {})).toBe('a-3');
  });

  it('fails loudly on required, fail and anything outside the subset', () => {
    expect(() => render('{{ required "need x" .x }}', {})).toThrow('required: need x');
    expect(() => render('{{ fail "no" }}', {})).toThrow('fail: no');
    expect(() => render('{{ tpl .x . }}', {})).toThrow(TemplateRenderError);
    expect(() => render('{{ include "missing" . }}', {})).toThrow('no template named "missing"');
    expect(() => parseTemplate('{{ if .a }}')).toThrow('unclosed if');
    expect(() => render('{{ .a.b }}', {})).toThrow('nil pointer evaluating .b');
    expect(render('[{{ .a }}]', {})).toBe('[]');
  });
});

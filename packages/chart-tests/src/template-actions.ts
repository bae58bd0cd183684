/**
 * Splits a Helm (Go text/template) file into literal text and `{{ … }}` actions.
 * Helm is not installed here, so the chart tests read templates with this scanner.
 */

export interface TemplateAction {
  /** Action body without the delimiters and the `-` trim markers, trimmed. */
  body: string;
  /** 1-based line of the opening `{{`. */
  line: number;
  trimLeft: boolean;
  trimRight: boolean;
  isComment: boolean;
}

export type TemplatePiece = { kind: 'text'; text: string } | { kind: 'action'; action: TemplateAction };

export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** Splits text into pieces; throws TemplateSyntaxError on an unclosed action, string or comment. */
export function splitTemplate(text: string): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  let pos = 0;
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  while (pos < text.length) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      pieces.push({ kind: 'text', text: text.slice(pos) });
      break;
    }
    if (open > pos) pieces.push({ kind: 'text', text: text.slice(pos, open) });
    const line = lineAt(open);
    let i = open + 2;
    const trimLeft = text[i] === '-' && /\s/.test(text[i + 1] ?? '');
    if (trimLeft) i += 1;
    const bodyStart = i;
    let close = -1;
    let isComment = false;
    const afterSpace = text.slice(i).match(/^\s*/)?.[0].length ?? 0;
    if (text.startsWith('/*', i + afterSpace)) {
      // Comments end at `*/` followed by the closing delimiter.
      isComment = true;
      const end = text.indexOf('*/', i + afterSpace + 2);
      if (end < 0) throw new TemplateSyntaxError('unclosed comment', line);
      const rest = text.slice(end + 2).match(/^\s*(-\s*)?}}/);
      if (!rest) throw new TemplateSyntaxError('comment must be closed by */}}', line);
      close = end + 2 + rest[0].length - 2;
    } else {
      while (i < text.length) {
        const ch = text[i]!;
        if (ch === '"') {
          i = skipQuoted(text, i, line);
          continue;
        }
        if (ch === '`') {
          const end = text.indexOf('`', i + 1);
          if (end < 0) throw new TemplateSyntaxError('unclosed raw string', line);
          i = end + 1;
          continue;
        }
        if (ch === "'") {
          i = skipChar(text, i, line);
          continue;
        }
        if (text.startsWith('{{', i)) throw new TemplateSyntaxError('"{{" inside an action', lineAt(i));
        if (text.startsWith('}}', i)) {
          close = i;
          break;
        }
        i += 1;
      }
      if (close < 0) throw new TemplateSyntaxError('unclosed action "{{"', line);
    }
    let bodyEnd = close;
    const before = text.slice(bodyStart, close);
    const trimRight = /\s-$/.test(before);
    if (trimRight) bodyEnd = close - 1;
    const body = text.slice(bodyStart, bodyEnd).trim();
    pieces.push({ kind: 'action', action: { body, line, trimLeft, trimRight, isComment } });
    pos = close + 2;
  }
  return pieces;
}

function skipQuoted(text: string, start: number, line: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') i += 2;
    else if (ch === '"') return i + 1;
    else if (ch === '\n') break;
    else i += 1;
  }
  throw new TemplateSyntaxError('unclosed string literal', line);
}

function skipChar(text: string, start: number, line: number): number {
  const m = text.slice(start).match(/^'(\\.|[^'\\])'/);
  if (!m) throw new TemplateSyntaxError('bad character literal', line);
  return start + m[0].length;
}

/** The actions of a template, in order. */
export function templateActions(text: string): TemplateAction[] {
  return splitTemplate(text).flatMap((p) => (p.kind === 'action' ? [p.action] : []));
}

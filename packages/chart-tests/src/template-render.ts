/**
 * A small renderer for the subset of Go text/template + Helm functions this chart uses.
 * Helm is not installed on these machines; rendering the chart here lets tests parse the
 * produced manifests. It is not Helm: unknown functions or syntax throw, so a template that
 * strays outside the subset fails loudly instead of rendering something different.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { splitTemplate } from './template-actions.ts';

type Node =
  | { type: 'text'; text: string }
  | { type: 'action'; pipe: Pipeline; line: number }
  | { type: 'if' | 'with'; branches: Array<{ pipe: Pipeline; body: Node[] }>; otherwise: Node[] | undefined }
  | { type: 'range'; keyVar?: string; valueVar?: string; pipe: Pipeline; body: Node[]; otherwise: Node[] | undefined }
  | { type: 'define'; name: string; body: Node[] };

interface Pipeline {
  decl?: { name: string; assign: boolean };
  commands: Operand[][];
}

type Operand =
  | { kind: 'literal'; value: unknown }
  /** base is '.' for the dot or a `$variable` name. */
  | { kind: 'field'; base: string; path: string[] }
  | { kind: 'ident'; name: string }
  | { kind: 'pipe'; pipe: Pipeline };

export class TemplateRenderError extends Error {}

// ---------- parsing ----------

function tokenize(body: string): string[] {
  const tokens: string[] = [];
  const re = /\s+|("(?:\\.|[^"\\])*")|(`[^`]*`)|(:=)|([()|,=])|(\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)|(\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*|\.)|(-?\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)/y;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const m = re.exec(body);
    if (!m) throw new TemplateRenderError(`cannot read "${body.slice(pos)}"`);
    if (!/^\s+$/.test(m[0])) tokens.push(m[0]);
    pos = re.lastIndex;
  }
  return tokens;
}

function parsePipeline(tokens: string[]): Pipeline {
  let rest = tokens;
  let decl: Pipeline['decl'];
  if (rest.length > 2 && rest[0]!.startsWith('$') && (rest[1] === ':=' || rest[1] === '=')) {
    decl = { name: rest[0]!, assign: rest[1] === '=' };
    rest = rest.slice(2);
  }
  const commands: Operand[][] = [];
  let i = 0;
  let current: Operand[] = [];
  while (i < rest.length) {
    const t = rest[i]!;
    if (t === '|') {
      commands.push(current);
      current = [];
      i += 1;
    } else if (t === '(') {
      let depth = 1;
      let j = i + 1;
      while (j < rest.length && depth > 0) {
        if (rest[j] === '(') depth += 1;
        if (rest[j] === ')') depth -= 1;
        j += 1;
      }
      if (depth !== 0) throw new TemplateRenderError('unbalanced parentheses');
      current.push({ kind: 'pipe', pipe: parsePipeline(rest.slice(i + 1, j - 1)) });
      i = j;
    } else {
      current.push(operand(t));
      i += 1;
    }
  }
  commands.push(current);
  if (commands.some((c) => c.length === 0)) throw new TemplateRenderError('empty command in pipeline');
  return { decl, commands };
}

function operand(t: string): Operand {
  if (t.startsWith('"')) return { kind: 'literal', value: JSON.parse(t) as string };
  if (t.startsWith('`')) return { kind: 'literal', value: t.slice(1, -1) };
  if (/^-?\d/.test(t)) return { kind: 'literal', value: Number(t) };
  if (t === 'true' || t === 'false') return { kind: 'literal', value: t === 'true' };
  if (t === 'nil') return { kind: 'literal', value: undefined };
  if (t === '.') return { kind: 'field', base: '.', path: [] };
  if (t.startsWith('.')) return { kind: 'field', base: '.', path: t.slice(1).split('.') };
  if (t.startsWith('$')) {
    const [name, ...path] = t.split('.');
    return { kind: 'field', base: name!, path };
  }
  if (/^[A-Za-z_]/.test(t)) return { kind: 'ident', name: t };
  throw new TemplateRenderError(`unexpected token ${t}`);
}

/** Parses a template file into nodes; `define` blocks are returned separately. */
export function parseTemplate(text: string): { nodes: Node[]; defines: Map<string, Node[]> } {
  const pieces = splitTemplate(text);
  // Apply trim markers to the neighbouring text.
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k]!;
    if (p.kind !== 'action') continue;
    const prev = pieces[k - 1];
    const next = pieces[k + 1];
    if (p.action.trimLeft && prev?.kind === 'text') prev.text = prev.text.replace(/\s+$/, '');
    if (p.action.trimRight && next?.kind === 'text') next.text = next.text.replace(/^\s+/, '');
  }
  const defines = new Map<string, Node[]>();
  type Frame = { nodes: Node[]; open?: Node; keyword: string };
  const root: Frame = { nodes: [], keyword: 'root' };
  const stack: Frame[] = [root];
  const top = () => stack.at(-1)!;
  for (const p of pieces) {
    if (p.kind === 'text') {
      if (p.text) top().nodes.push({ type: 'text', text: p.text });
      continue;
    }
    const { body, isComment, line } = p.action;
    if (isComment) continue;
    const tokens = tokenize(body);
    const keyword = tokens[0];
    try {
      if (keyword === 'if' || keyword === 'with') {
        const node: Node = { type: keyword, branches: [{ pipe: parsePipeline(tokens.slice(1)), body: [] }], otherwise: undefined };
        top().nodes.push(node);
        stack.push({ nodes: node.branches[0]!.body, open: node, keyword });
      } else if (keyword === 'range') {
        let rest = tokens.slice(1);
        let keyVar: string | undefined;
        let valueVar: string | undefined;
        const declAt = rest.indexOf(':=');
        if (declAt > 0) {
          const vars = rest.slice(0, declAt).filter((v) => v !== ',');
          if (vars.length === 2) [keyVar, valueVar] = vars;
          else valueVar = vars[0];
          rest = rest.slice(declAt + 1);
        }
        const node: Node = { type: 'range', keyVar, valueVar, pipe: parsePipeline(rest), body: [], otherwise: undefined };
        top().nodes.push(node);
        stack.push({ nodes: node.body, open: node, keyword });
      } else if (keyword === 'define') {
        const name = JSON.parse(tokens[1]!) as string;
        const node: Node = { type: 'define', name, body: [] };
        defines.set(name, node.body);
        stack.push({ nodes: node.body, open: node, keyword });
      } else if (keyword === 'else') {
        const frame = stack.pop()!;
        const open = frame.open;
        if (!open || (open.type !== 'if' && open.type !== 'with' && open.type !== 'range')) throw new TemplateRenderError('else outside a block');
        if (tokens.length > 1 && (tokens[1] === 'if' || tokens[1] === 'with') && open.type !== 'range') {
          const branch = { pipe: parsePipeline(tokens.slice(2)), body: [] as Node[] };
          open.branches.push(branch);
          stack.push({ nodes: branch.body, open, keyword: frame.keyword });
        } else {
          open.otherwise = [];
          stack.push({ nodes: open.otherwise, open, keyword: frame.keyword });
        }
      } else if (keyword === 'end') {
        if (stack.length === 1) throw new TemplateRenderError('end without a block');
        stack.pop();
      } else {
        top().nodes.push({ type: 'action', pipe: parsePipeline(tokens), line });
      }
    } catch (err) {
      throw new TemplateRenderError(`line ${line}: ${(err as Error).message}`);
    }
  }
  if (stack.length !== 1) throw new TemplateRenderError(`unclosed ${top().keyword}`);
  return { nodes: root.nodes, defines };
}

// ---------- evaluation ----------

class Scope {
  private readonly vars = new Map<string, unknown>();
  constructor(private readonly parent?: Scope) {}
  declare(name: string, value: unknown) {
    this.vars.set(name, value);
  }
  private find(name: string): Scope | undefined {
    return this.vars.has(name) ? this : this.parent?.find(name);
  }
  assign(name: string, value: unknown) {
    const owner = this.find(name);
    if (!owner) throw new TemplateRenderError(`assignment to undeclared ${name}`);
    owner.vars.set(name, value);
  }
  get(name: string): unknown {
    const owner = this.find(name);
    if (!owner) throw new TemplateRenderError(`undefined variable ${name}`);
    return owner.vars.get(name);
  }
}

export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function field(value: unknown, path: string[]): unknown {
  let node = value;
  for (const key of path) {
    // Like Helm: reading through a missing map entry is a nil pointer error, not an empty value.
    if (node === undefined || node === null) throw new TemplateRenderError(`nil pointer evaluating .${key}`);
    if (typeof node !== 'object') throw new TemplateRenderError(`cannot read .${key} of a ${typeof node}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function show(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

function sprintf(format: string, args: unknown[]): string {
  let i = 0;
  return format.replace(/%([svdq%])/g, (_m, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[i++];
    return verb === 'q' ? JSON.stringify(show(arg)) : show(arg);
  });
}

function toYaml(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  return stringify(v, { lineWidth: 0 }).replace(/\n$/, '');
}

const indentText = (n: number, s: string) => s.split('\n').map((line) => ' '.repeat(n) + line).join('\n');

export interface RenderContext {
  defines: Map<string, Node[]>;
}

export class Renderer {
  private readonly functions: Record<string, (...args: unknown[]) => unknown>;

  constructor(private readonly ctx: RenderContext) {
    this.functions = {
      include: (name, data) => this.renderDefine(String(name), data),
      dict: (...kv) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < kv.length; i += 2) out[String(kv[i])] = kv[i + 1];
        return out;
      },
      list: (...items) => items,
      append: (items, item) => [...(items as unknown[]), item],
      printf: (format, ...args) => sprintf(String(format), args),
      default: (fallback, value) => (truthy(value) ? value : fallback),
      trunc: (n, s) => show(s).slice(0, Number(n)),
      trimSuffix: (suffix, s) => (show(s).endsWith(String(suffix)) ? show(s).slice(0, -String(suffix).length) : show(s)),
      contains: (needle, s) => show(s).includes(String(needle)),
      replace: (from, to, s) => show(s).replaceAll(String(from), String(to)),
      toYaml: (v) => toYaml(v),
      indent: (n, s) => indentText(Number(n), show(s)),
      nindent: (n, s) => `\n${indentText(Number(n), show(s))}`,
      quote: (...vs) => vs.map((v) => JSON.stringify(show(v))).join(' '),
      required: (message, v) => {
        if (!truthy(v)) throw new TemplateRenderError(`required: ${String(message)}`);
        return v;
      },
      fail: (message) => {
        throw new TemplateRenderError(`fail: ${String(message)}`);
      },
      join: (sep, items) => ((items as unknown[] | undefined) ?? []).map(show).join(String(sep)),
      sha256sum: (s) => createHash('sha256').update(show(s)).digest('hex'),
      eq: (a, ...bs) => bs.some((b) => a === b),
      ne: (a, b) => a !== b,
      lt: (a, b) => (a as number) < (b as number),
      gt: (a, b) => (a as number) > (b as number),
      int: (v) => Math.trunc(Number(v ?? 0)),
      and: (...vs) => vs.find((v) => !truthy(v)) ?? vs.at(-1),
      or: (...vs) => vs.find((v) => truthy(v)) ?? vs.at(-1),
      not: (v) => !truthy(v),
    };
  }

  renderDefine(name: string, data: unknown): string {
    const body = this.ctx.defines.get(name);
    if (!body) throw new TemplateRenderError(`no template named "${name}"`);
    const scope = new Scope();
    scope.declare('$', data);
    return this.renderNodes(body, data, scope);
  }

  renderRoot(nodes: Node[], data: unknown): string {
    const scope = new Scope();
    scope.declare('$', data);
    return this.renderNodes(nodes, data, scope);
  }

  private renderNodes(nodes: Node[], dot: unknown, scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          out += node.text;
          break;
        case 'action': {
          const value = this.evalPipeline(node.pipe, dot, scope);
          if (!node.pipe.decl) out += show(value);
          break;
        }
        case 'if':
        case 'with': {
          const inner = new Scope(scope);
          let done = false;
          for (const branch of node.branches) {
            const value = this.evalPipeline(branch.pipe, dot, inner);
            if (!truthy(value)) continue;
            out += this.renderNodes(branch.body, node.type === 'with' ? value : dot, inner);
            done = true;
            break;
          }
          if (!done && node.otherwise) out += this.renderNodes(node.otherwise, dot, inner);
          break;
        }
        case 'range': {
          const items = this.evalPipeline(node.pipe, dot, scope);
          const entries: Array<[unknown, unknown]> = Array.isArray(items)
            ? items.map((v, i) => [i, v])
            : items && typeof items === 'object'
              ? Object.keys(items).sort().map((k) => [k, (items as Record<string, unknown>)[k]])
              : [];
          if (entries.length === 0 && node.otherwise) out += this.renderNodes(node.otherwise, dot, new Scope(scope));
          for (const [key, value] of entries) {
            const inner = new Scope(scope);
            if (node.keyVar) inner.declare(node.keyVar, key);
            if (node.valueVar) inner.declare(node.valueVar, value);
            out += this.renderNodes(node.body, value, inner);
          }
          break;
        }
        case 'define':
          break;
      }
    }
    return out;
  }

  private evalPipeline(pipe: Pipeline, dot: unknown, scope: Scope): unknown {
    let value: unknown;
    let piped = false;
    for (const command of pipe.commands) {
      value = this.evalCommand(command, dot, scope, piped ? [value] : []);
      piped = true;
    }
    if (pipe.decl) {
      if (pipe.decl.assign) scope.assign(pipe.decl.name, value);
      else scope.declare(pipe.decl.name, value);
    }
    return value;
  }

  private evalCommand(command: Operand[], dot: unknown, scope: Scope, pipedIn: unknown[]): unknown {
    const head = command[0];
    if (!head) throw new TemplateRenderError('empty command');
    const rest = command.slice(1);
    if (head.kind === 'ident') {
      const fn = this.functions[head.name];
      if (!fn) throw new TemplateRenderError(`unknown function ${head.name}`);
      return fn(...rest.map((o) => this.evalOperand(o, dot, scope)), ...pipedIn);
    }
    if (rest.length > 0 || pipedIn.length > 0) throw new TemplateRenderError('a value cannot take arguments');
    return this.evalOperand(head, dot, scope);
  }

  private evalOperand(o: Operand, dot: unknown, scope: Scope): unknown {
    switch (o.kind) {
      case 'literal':
        return o.value;
      case 'field':
        return field(o.base === '.' ? dot : scope.get(o.base), o.path);
      case 'pipe':
        return this.evalPipeline(o.pipe, dot, scope);
      case 'ident': {
        const fn = this.functions[o.name];
        if (!fn) throw new TemplateRenderError(`unknown function ${o.name}`);
        return fn();
      }
    }
  }
}

import { readFileSync } from 'node:fs';
import { parsePath, validate, type Environment, type ValidationLookup } from '@orrery/spec';
import { keyspaceHoldersAmong } from '@orrery/store';
import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { lineOf } from './locate.ts';

/** One line of `orrery validate` output. */
export interface Problem {
  file: string;
  line: number;
  /** `Kind/name`, `?` for what a broken document does not say. */
  resource: string;
  path: string;
  reason: string;
  message: string;
}

interface LoadedDoc {
  file: string;
  doc: Document;
  lines: LineCounter;
  value: unknown;
}

/**
 * Validates every document of every file; Environments found in the set feed the lookup, and so
 * do the Functions before each document (their keyspaces are taken). `read` gives a file's text
 * (`apply -f -` passes stdin's under the name "<stdin>").
 */
export function checkFiles(files: readonly string[], read: (file: string) => string = (file) => readFileSync(file, 'utf8')): { problems: Problem[]; documents: number } {
  const problems: Problem[] = [];
  const docs: LoadedDoc[] = [];

  for (const file of files) {
    let text: string;
    try {
      text = read(file);
    } catch (err) {
      problems.push({ file, line: 0, resource: '?', path: '<file>', reason: 'unreadable', message: (err as Error).message });
      continue;
    }
    const lines = new LineCounter();
    for (const doc of parseAllDocuments(text, { lineCounter: lines })) {
      if (!('errors' in doc)) continue; // an EmptyStream: nothing but comments
      if (doc.errors.length > 0) {
        for (const e of doc.errors) {
          problems.push({ file, line: e.linePos?.[0]?.line ?? 0, resource: '?', path: '<yaml>', reason: 'yaml_syntax', message: e.message.split('\n')[0]! });
        }
        continue;
      }
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue; // an empty document between `---`
      docs.push({ file, doc, lines, value });
    }
  }

  const environments = new Map<string, Environment>();
  for (const d of docs) {
    const v = d.value as Partial<Environment> | null;
    if (v && typeof v === 'object' && v.kind === 'Environment' && v.metadata?.name && v.spec) {
      environments.set(`${v.metadata.namespace ?? 'default'}/${v.metadata.name}`, v as Environment);
    }
  }
  const environment: ValidationLookup['environment'] = (ns, name) => environments.get(`${ns}/${name}`);

  const seen = new Map<string, string>();
  const before: unknown[] = [];
  for (const d of docs) {
    const resource = describe(d.value);
    // A keyspace belongs to one Function: the first document declaring it owns it (`orrery apply`
    // applies in this order, so the later ones are the applies the store would refuse).
    const earlier = [...before];
    const lookup: ValidationLookup = { environment, keyspaceHolders: (ns, keyspace) => keyspaceHoldersAmong(earlier, ns, keyspace) };
    before.push(d.value);
    for (const error of validate(d.value, lookup)) {
      problems.push({ file: d.file, line: lineOf(d.doc, parsePath(error.path), d.lines), resource, path: error.path || '<document>', reason: error.reason, message: error.message });
    }
    const id = identity(d.value);
    if (id) {
      const first = seen.get(id);
      if (first) {
        problems.push({ file: d.file, line: lineOf(d.doc, ['metadata', 'name'], d.lines), resource, path: 'metadata.name', reason: 'duplicate', message: `${resource} is also defined at ${first}` });
      } else seen.set(id, `${d.file}:${lineOf(d.doc, [], d.lines)}`);
    }
  }
  // Files in argument order, lines ascending within a file: reads like a compiler's output.
  const order = new Map(files.map((f, i) => [f, i]));
  problems.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line);
  return { problems, documents: docs.length };
}

function describe(value: unknown): string {
  const v = (value ?? {}) as { kind?: unknown; metadata?: { name?: unknown } };
  const kind = typeof v.kind === 'string' ? v.kind : '?';
  const name = typeof v.metadata?.name === 'string' ? v.metadata.name : '?';
  return `${kind}/${name}`;
}

function identity(value: unknown): string | undefined {
  const v = (value ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (typeof v.kind !== 'string' || typeof v.metadata?.name !== 'string') return undefined;
  return `${v.kind}/${typeof v.metadata.namespace === 'string' ? v.metadata.namespace : 'default'}/${v.metadata.name}`;
}

/** `file:line: Kind/name: path: reason — message` */
export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}: ${p.resource}: ${p.path}: ${p.reason} — ${p.message}`;
}

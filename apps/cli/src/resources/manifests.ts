/**
 * Manifests named by `-f`: validated with the same rules as `orrery validate` (so a bad file
 * stops before anything reaches the store), then read as plain objects in apply order.
 * `-f -` reads the manifests from stdin (`helm template … | orrery apply -f -`).
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { checkFiles, formatProblem } from '../validate/check-files.ts';
import { collectFiles } from '../validate/collect-files.ts';

export interface ManifestObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
}

export type LoadedManifests = { ok: true; objects: ManifestObject[] } | { ok: false; errors: string[] };

/** Environments first (Functions are validated against them), then the rest in file order. */
const ORDER: Record<string, number> = { Environment: 0 };

/** How stdin is named in problems (`<stdin>:3: Function/x: …`). */
export const STDIN_NAME = '<stdin>';

export function loadManifests(args: readonly string[], readStdin: () => string = () => readFileSync(0, 'utf8')): LoadedManifests {
  const stdin = args.includes('-') ? readStdin() : undefined;
  const { files: named, missing } = collectFiles(args.filter((a) => a !== '-'));
  if (missing.length > 0) return { ok: false, errors: missing.map((m) => `${m}: no such file or directory`) };
  const files = stdin === undefined ? named : [...named, STDIN_NAME];
  if (files.length === 0) return { ok: false, errors: [`no .yaml/.yml files in ${args.join(', ')}`] };
  const read = (file: string) => (file === STDIN_NAME && stdin !== undefined ? stdin : readFileSync(file, 'utf8'));
  const { problems, documents } = checkFiles(files, read);
  if (problems.length > 0) return { ok: false, errors: problems.map(formatProblem) };
  if (documents === 0) return { ok: false, errors: [`no manifests in ${args.map((a) => (a === '-' ? 'stdin' : a)).join(', ')}`] };
  const objects: ManifestObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(read(file))) {
      if (!('errors' in doc)) continue;
      const value = doc.toJS() as ManifestObject | null;
      if (value) objects.push(value);
    }
  }
  objects.sort((a, b) => (ORDER[a.kind] ?? 1) - (ORDER[b.kind] ?? 1));
  return { ok: true, objects };
}

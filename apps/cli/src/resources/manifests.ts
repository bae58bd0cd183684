/**
 * Manifests named by `-f`: validated with the same rules as `orrery validate` (so a bad file
 * stops before anything reaches the store), then read as plain objects in apply order.
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

export function loadManifests(args: readonly string[]): LoadedManifests {
  const { files, missing } = collectFiles(args);
  if (missing.length > 0) return { ok: false, errors: missing.map((m) => `${m}: no such file or directory`) };
  if (files.length === 0) return { ok: false, errors: [`no .yaml/.yml files in ${args.join(', ')}`] };
  const { problems } = checkFiles(files);
  if (problems.length > 0) return { ok: false, errors: problems.map(formatProblem) };
  const objects: ManifestObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (!('errors' in doc)) continue;
      const value = doc.toJS() as ManifestObject | null;
      if (value) objects.push(value);
    }
  }
  objects.sort((a, b) => (ORDER[a.kind] ?? 1) - (ORDER[b.kind] ?? 1));
  return { ok: true, objects };
}

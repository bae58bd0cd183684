/**
 * The operator's core does not depend on a backend: code outside `backends/` reads and writes
 * through the per-kind backend interfaces (function/function-backend.ts,
 * registry-cluster/registry-cluster-backend.ts, state-sync/state-sync-backend.ts) and never
 * imports `backends/local` or `backends/kubernetes`. Only the composition roots choose a backend.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;
const BACKENDS = join(SRC, 'backends');
/** The process entry and the package entry: they wire a backend to the core, by design. */
const COMPOSITION_ROOTS = new Set(['main.ts', 'index.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier of static imports and re-exports, dynamic import() and vi.mock(). */
export function importedSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const re of [/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|vi\.mock)\s*\(\s*['"]([^'"]+)['"]/g]) {
    for (const m of text.matchAll(re)) out.push(m[1]!);
  }
  return out;
}

/** The core files that import something under backends/, as `file → specifier`. */
export function backendImports(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    if (rel.startsWith(`backends${sep}`) || COMPOSITION_ROOTS.has(rel)) continue;
    for (const spec of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (target === BACKENDS || target.startsWith(BACKENDS + sep)) found.push(`${rel} → ${spec}`);
    }
  }
  return found;
}

describe('operator architecture', () => {
  it('no file outside backends/ (but the composition roots) imports from backends/', () => {
    expect(backendImports(sourceFiles(SRC))).toEqual([]);
  });

  it('sees static, type-only, re-exported and dynamic imports', () => {
    const text = [
      "import { a } from './elsewhere/local/x.ts';",
      "import type {\n  B,\n} from '../elsewhere/kubernetes/y.ts';",
      "export { c } from './elsewhere/z.ts';",
      "const m = await import('./elsewhere/kubernetes/main.ts');",
      "import './elsewhere/side-effect.ts';",
    ].join('\n');
    expect(importedSpecifiers(text).sort()).toEqual(['../elsewhere/kubernetes/y.ts', './elsewhere/kubernetes/main.ts', './elsewhere/local/x.ts', './elsewhere/side-effect.ts', './elsewhere/z.ts']);
  });
});

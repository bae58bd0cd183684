/**
 * Every package a workspace imports is declared in that workspace's package.json (issue 23:
 * "CLI tests import undeclared packages"). An undeclared import works in this checkout only
 * because npm hoists every workspace's dependencies to the root node_modules; it breaks when the
 * workspace is packed or installed on its own (`npm i -g` of the CLI, an image's production
 * install). Tests may also use the root's devDependencies (vitest, fast-check, …), which every
 * workspace's tests run under.
 */
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.next', 'coverage', 'out']);
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const TEST_FILE = /(\.test\.tsx?$)|(\/testing\/)|(\/e2e\/)/;
const BUILTINS = new Set(builtinModules);

type Manifest = { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };

const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const names = (m: Manifest) => new Set([...Object.keys(m.dependencies ?? {}), ...Object.keys(m.devDependencies ?? {}), ...Object.keys(m.peerDependencies ?? {})]);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (SKIP_DIRS.has(entry) || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

/** The package a bare specifier names (`@orrery/log/testing` → `@orrery/log`); undefined for relative, `node:` and builtins. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.startsWith('#')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTINS.has(name) ? undefined : name;
}

/** Specifiers of static imports and re-exports, side-effect imports and literal dynamic imports. */
export function importedSpecifiers(text: string): string[] {
  const found: string[] = [];
  // Comments would yield false hits ("from 'x'" in prose); strip block and line comments first.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

const workspaces = ['packages', 'apps']
  .flatMap((d) => readdirSync(join(ROOT, d)).map((n) => join(ROOT, d, n)))
  .filter((dir) => existsSync(join(dir, 'package.json')));
const rootDev = names(read(join(ROOT, 'package.json')));

describe('declared imports', () => {
  it('finds specifiers the way the rule needs them', () => {
    expect(importedSpecifiers(`import { a } from '@orrery/log/testing';\nimport type { B } from "yaml";\nexport * from './x.ts';\nimport 'side-effect';\nconst m = await import('ioredis');\n// import { c } from 'in-a-comment';\n/* from 'block' */`)).toEqual([
      '@orrery/log/testing',
      'yaml',
      './x.ts',
      'side-effect',
      'ioredis',
    ]);
    expect(['@orrery/log/testing', 'yaml', './x.ts', 'node:fs', 'fs', 'drizzle-orm/pg-core'].map(packageOf)).toEqual(['@orrery/log', 'yaml', undefined, undefined, undefined, 'drizzle-orm']);
  });

  it.each(workspaces.map((w) => [relative(ROOT, w), w]))('%s declares every package it imports', (_name, dir) => {
    const manifest = read(join(dir, 'package.json'));
    const declared = names(manifest);
    const missing = new Map<string, string[]>();
    for (const file of sources(dir)) {
      const rel = relative(ROOT, file);
      for (const spec of importedSpecifiers(readFileSync(file, 'utf8'))) {
        const pkg = packageOf(spec);
        if (!pkg || pkg === manifest.name || declared.has(pkg)) continue;
        if (TEST_FILE.test(rel) && rootDev.has(pkg)) continue;
        missing.set(pkg, [...(missing.get(pkg) ?? []), rel]);
      }
    }
    const report = [...missing].map(([pkg, files]) => `${pkg} (in ${[...new Set(files)].slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''})`);
    expect(report, `add these to ${relative(ROOT, dir)}/package.json (dependencies when shipped code imports them, else devDependencies)`).toEqual([]);
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs install script without type declarations
import { applyPatch, PATCHES } from '../patch-dependencies.mjs';

interface Patch {
  package: string;
  versions: string[];
  files: string[];
  find: string;
  replace: string;
}
const apply = applyPatch as (patch: Patch, nodeModules: string) => string;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const patch: Patch = { package: 'demo', versions: ['1.2.3'], files: ['a.js', 'lib/b.js'], find: 'leak()\n', replace: 'leak()\ncompact()\n' };

/** A node_modules with `demo` at `version`, its two files holding `text`. */
function fixture(version: string, text = 'start\nleak()\nend\n'): string {
  const nodeModules = mkdtempSync(join(tmpdir(), 'orrery-patch-deps-'));
  dirs.push(nodeModules);
  mkdirSync(join(nodeModules, 'demo', 'lib'), { recursive: true });
  writeFileSync(join(nodeModules, 'demo', 'package.json'), JSON.stringify({ name: 'demo', version }));
  for (const f of patch.files) writeFileSync(join(nodeModules, 'demo', f), text);
  return nodeModules;
}

describe('carried dependency fixes (scripts/patch-dependencies.mjs)', () => {
  it('replaces the text in every file once, and a second run changes nothing', () => {
    const nm = fixture('1.2.3');
    expect(apply(patch, nm)).toBe('demo@1.2.3: patched a.js, lib/b.js');
    for (const f of patch.files) expect(readFileSync(join(nm, 'demo', f), 'utf8')).toBe('start\nleak()\ncompact()\nend\n');
    expect(apply(patch, nm)).toBe('demo@1.2.3: already patched');
    for (const f of patch.files) expect(readFileSync(join(nm, 'demo', f), 'utf8')).toBe('start\nleak()\ncompact()\nend\n');
  });

  it('skips a package that is not installed', () => {
    const nm = mkdtempSync(join(tmpdir(), 'orrery-patch-deps-'));
    dirs.push(nm);
    expect(apply(patch, nm)).toBe('demo: not installed, nothing to patch');
  });

  it('stops on a version the fix was not written for, naming both', () => {
    expect(() => apply(patch, fixture('1.3.0'))).toThrow(/demo@1\.3\.0 is installed, but the carried fix was written for 1\.2\.3/);
  });

  it('stops when a file holds neither the original text nor the fix, or the text twice', () => {
    expect(() => apply(patch, fixture('1.2.3', 'rewritten upstream\n'))).toThrow(/a\.js does not hold the text the carried fix replaces/);
    expect(() => apply(patch, fixture('1.2.3', 'leak()\nleak()\n'))).toThrow(/exactly once/);
  });

  it('every carried fix matches the installed package: applied, or applicable', () => {
    const nodeModules = join(import.meta.dirname, '..', '..', 'node_modules');
    for (const p of PATCHES as Patch[]) {
      const version = (JSON.parse(readFileSync(join(nodeModules, p.package, 'package.json'), 'utf8')) as { version: string }).version;
      expect(p.versions).toContain(version);
      for (const f of p.files) {
        const text = readFileSync(join(nodeModules, p.package, f), 'utf8');
        expect(text.includes(p.replace) || text.includes(p.find), `${p.package}/${f}`).toBe(true);
      }
    }
  });
});

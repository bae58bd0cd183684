import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFiles, bundleInputs, bundlesFresh, ensureAppBundles } from './app-bundles-build.ts';
import { REPO_ROOT } from './tool-paths.ts';

describe('bundlesFresh', () => {
  it('is fresh only when every bundle exists and none is older than the newest input', () => {
    expect(bundlesFresh([200, 300], [100, 200])).toBe(true);
    expect(bundlesFresh([200, 300], [100, 201])).toBe(false);
    expect(bundlesFresh([200, undefined], [100])).toBe(false);
    expect(bundlesFresh([], [100])).toBe(true);
  });
});

describe('bundleFiles', () => {
  it("lists the dist/ entrypoints of this repository's Dockerfiles (not the console's bin)", () => {
    const rel = bundleFiles(REPO_ROOT).map((f) => f.slice(REPO_ROOT.length + 1)).sort();
    const bundles = ['cli', 'operator', 'registry', 'router', 'statesvc'].map((a) => `apps/${a}/dist/orrery-${a}.mjs`);
    // The runtime's image starts its CommonJS body through the code cache build:apps made.
    expect(rel).toEqual([...bundles, 'apps/runtime/dist/orrery-runtime.body.cjs', 'apps/runtime/dist/orrery-runtime.body.v8cache'].sort());
  });
});

describe('ensureAppBundles', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A repository with one app whose Dockerfile starts dist/, and a build script that records it ran. */
  const fakeRepo = (bundleAgeS: number, sourceAgeS: number) => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-bundles-'));
    const at = (f: string, text: string, ageS: number) => {
      mkdirSync(join(dir!, f, '..'), { recursive: true });
      writeFileSync(join(dir!, f), text);
      const t = Date.now() / 1000 - ageS;
      utimesSync(join(dir!, f), t, t);
    };
    at('apps/x/Dockerfile', 'FROM node AS runtime\nENTRYPOINT ["node", "apps/x/dist/orrery-x.mjs"]\n', 100);
    at('apps/x/src/main.ts', 'export {};\n', sourceAgeS);
    at('packages/y/src/index.ts', 'export {};\n', 100);
    at('package-lock.json', '{}', 100);
    at('scripts/build-apps.mjs', "import { writeFileSync } from 'node:fs';\nwriteFileSync('apps/x/dist/orrery-x.mjs', '// rebuilt');\nconsole.log('built apps/x/dist/orrery-x.mjs');\n", 100);
    at('apps/x/dist/orrery-x.mjs', '// old', bundleAgeS);
    return dir;
  };

  it('leaves fresh bundles alone', () => {
    const root = fakeRepo(10, 50);
    const lines: string[] = [];
    ensureAppBundles(root, (l) => lines.push(l));
    expect(lines).toEqual([]);
    expect(bundleInputs(root).map((f) => f.slice(root.length + 1))).toContain('apps/x/src/main.ts');
  });

  it('rebuilds when a source is newer than a bundle, and says so', async () => {
    const root = fakeRepo(50, 10);
    const lines: string[] = [];
    ensureAppBundles(root, (l) => lines.push(l));
    expect(lines).toEqual(['[kube-testenv] building the apps the process kubelet runs (npm run build:apps)', '[kube-testenv] built apps/x/dist/orrery-x.mjs']);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(root, 'apps/x/dist/orrery-x.mjs'), 'utf8')).toBe('// rebuilt');
  });

  it('throws with the output of a failed build', () => {
    const root = fakeRepo(50, 10);
    writeFileSync(join(root, 'scripts/build-apps.mjs'), "console.error('esbuild: syntax error in apps/x/src/main.ts'); process.exit(1);\n");
    expect(() => ensureAppBundles(root, () => {})).toThrow(/npm run build:apps failed \(exit 1\):\nesbuild: syntax error in apps\/x\/src\/main\.ts/);
  });
});

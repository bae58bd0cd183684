import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests sit beside the code; every workspace is a vitest project. Tests against the real
// Kubernetes control plane (*.kube.test.ts, wherever they sit) form one more project, so that a
// single control plane (its global setup) serves all of them; browser specs live in e2e/.
const KUBE_TESTS = '**/*.kube.test.ts';
const workspaces = ['packages', 'apps']
  .flatMap((dir) => readdirSync(dir).map((name) => `${dir}/${name}`))
  .filter((root) => existsSync(`${root}/package.json`))
  .sort();

// `npm test` runs three vitest processes side by side (scripts/test.sh); ORRERY_TEST_GROUP picks
// their files: `kubernetes` (one control plane: files take turns), `platform` (the browser specs'
// one platform and the two slow `orrery up` tests: files take turns), `parallel` (every other
// file), or `one-at-a-time` (kubernetes and platform together). vitest's
// `--project '!a' --project '!b'` cannot say "neither": its patterns are OR-ed.
const GROUPS = ['parallel', 'kubernetes', 'platform', 'one-at-a-time'];
const group = process.env.ORRERY_TEST_GROUP;
if (group !== undefined && !GROUPS.includes(group)) throw new Error(`ORRERY_TEST_GROUP must be one of ${GROUPS.join(', ')}; got "${group}"`);
const want = (kind: 'parallel' | 'kubernetes' | 'platform') => group === undefined || group === kind || (group === 'one-at-a-time' && kind !== 'parallel');
// Two slow platform tests (a minute each, mostly waiting on `orrery up`) run in the platform
// process beside the browser specs, not in the parallel one.
const ALONGSIDE = ['apps/cli/src/platform/up-smoke.int.test.ts', 'apps/cli/src/deploy/deploy.int.test.ts'];
const outside = (root: string) => ALONGSIDE.filter((f) => f.startsWith(`${root}/`)).map((f) => f.slice(root.length + 1));

export default defineConfig({
  test: {
    projects: [
      ...(want('parallel') ? workspaces : []).map((root) => ({
        test: {
          name: (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { name: string }).name,
          root,
          exclude: [...configDefaults.exclude, KUBE_TESTS, ...outside(root)],
          // Setup that starts a store or a service (a PGlite harness runs every migration) took over
          // vitest's default 10 s on a loaded 2-core CI machine, and over 60 s with two files at a
          // time beside the Kubernetes and platform runs at load 20; a hook that hangs still fails.
          hookTimeout: 120_000,
        },
      })),
      // The benchmarks' pure parts (percentiles, hit-ratio accounting); the benchmarks themselves run with `npm run bench`.
      ...(want('parallel') ? [{ test: { name: 'bench', root: 'bench', include: ['**/*.test.ts'] } }] : []),
      // Checks of the repository itself (every workspace's imports declared, …).
      ...(want('parallel') ? [{ test: { name: 'repo', root: 'scripts', include: ['checks/**/*.test.ts'] } }] : []),
      ...(want('platform') ? [{ test: { name: 'alongside', include: ALONGSIDE } }, 'e2e'] : []),
      ...(want('kubernetes') ? [{
        test: {
          name: 'kubernetes',
          include: [`{apps,packages}/${KUBE_TESTS}`],
          exclude: [...configDefaults.exclude],
          globalSetup: ['packages/kube-testenv/src/global-setup.ts'],
          // One cluster: files take turns, so a test that restarts the API server or removes an
          // RBAC verb does not pull the ground from under another.
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      }] : []),
    ],
  },
});

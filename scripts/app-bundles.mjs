/**
 * What each server app's image runs: its `src/main.ts` and the workspace packages it uses,
 * compiled by esbuild into one ES module, `apps/<app>/dist/orrery-<app>.mjs`
 * (scripts/build-apps.mjs builds it; the Dockerfile's ENTRYPOINT and the process kubelet run it).
 *
 * - `carried`: packages esbuild leaves out because they read files from beside themselves, which
 *   the image then carries in node_modules (with their production dependencies).
 * - `notCarried`: packages left out that the image does not carry: only a code path the image
 *   never takes imports them (lazily), and it says so if it does.
 * - `absent`: packages replaced by a module whose named `exports` throw when constructed or
 *   called: the image has no use for them, but shared code imports them eagerly (`@orrery/db`
 *   imports PGlite for the embedded store). An import of another name fails the build.
 * - `assets`: repository folders the bundled code reads at run time (the migrations).
 * - `banner`: extra lines at the top of the bundle.
 * - `body`: also compile the app as one CommonJS file there, and make V8's code cache of it
 *   (`bodyCache`, apps/runtime/boot/make-code-cache.mjs): the runtime's image starts workers from
 *   the two through `boot` (apps/runtime/boot/code-cached-boot.mjs), as the local backend does.
 */

const PGLITE = '@electric-sql/pglite';

/** @typedef {{ carried: string[], notCarried: Record<string, string>, absent: Record<string, { why: string, exports: string[] }>, assets: string[], banner?: string, body?: { file: string, cache: string, boot: string[] } }} AppBundle */

const PGLITE_EXPORTS = ['PGlite', 'types'];

/** What @orrery/tracing's startTracing imports lazily. */
const OTEL_SDK = ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@opentelemetry/semantic-conventions'];

/** @type {Record<'operator' | 'router' | 'statesvc' | 'registry' | 'runtime' | 'cli', AppBundle>} */
export const APP_BUNDLES = {
  operator: {
    // PGlite: without --database-url the admin API keeps users, sessions and audit in the
    // embedded store. etcd3 loads its .proto files from its folder (RegistryCluster membership).
    carried: [PGLITE, 'etcd3'],
    notCarried: { esbuild: 'the local backend compiles orrery-runtime with it; the image runs --backend=kubernetes' },
    absent: {},
    assets: ['packages/db/drizzle'],
  },
  router: {
    carried: [],
    notCarried: {},
    absent: { [PGLITE]: { why: 'the router reads the resource store over HTTP (--store-url); the embedded store runs in the operator', exports: PGLITE_EXPORTS } },
    assets: [],
  },
  statesvc: {
    carried: [],
    notCarried: {},
    absent: { [PGLITE]: { why: 'the state drivers are memory and postgres; the embedded store runs in the operator', exports: PGLITE_EXPORTS } },
    assets: ['packages/db/drizzle'],
  },
  registry: {
    carried: ['etcd3'],
    notCarried: {},
    absent: {},
    assets: [],
  },
  runtime: {
    // Function code from a file or URL may be TypeScript: tsx's loader is registered for such
    // code only (apps/runtime/src/load/typescript-loader.ts); the runtime itself is compiled.
    // The OpenTelemetry SDK is imported only when tracing is on (@orrery/tracing's startTracing):
    // carried beside the bundle instead of in it, every worker's start compiles ~0.3 MB less and
    // does not load node:child_process (runtime alone 1.23× → 1.02× a bare node server's
    // spawn → first 200; docs/performance.md "coldstart"). @opentelemetry/api stays bundled.
    carried: ['tsx', ...OTEL_SDK],
    notCarried: {},
    absent: {},
    assets: [],
    banner: "globalThis[Symbol.for('orrery.runtime.bundled')] = true;",
    // Beside the bundle: what the image's ENTRYPOINT and the local backend start workers from
    // (Node 20 keeps no compile cache for an ES module; ~8–14 ms of a worker's start).
    body: {
      file: 'apps/runtime/dist/orrery-runtime.body.cjs',
      cache: 'apps/runtime/dist/orrery-runtime.body.v8cache',
      boot: ['apps/runtime/boot/code-cached-boot.mjs'],
    },
  },
  cli: {
    // The orrery/cli image: the CLI in a pod (a CI job, a GitOps hook), in-cluster against the
    // API server. etcd3 loads its .proto files from its folder (`orrery registry` on etcd).
    carried: ['etcd3'],
    notCarried: {},
    absent: { [PGLITE]: { why: '`orrery up` (the embedded local platform) is not for a pod: the image talks to a cluster', exports: PGLITE_EXPORTS } },
    assets: [],
  },
};

export const APP_NAMES = /** @type {Array<keyof typeof APP_BUNDLES>} */ (Object.keys(APP_BUNDLES));

/** The bundle's path from the repository root, as the Dockerfile's ENTRYPOINT names it. */
export const bundlePath = (/** @type {string} */ app) => `apps/${app}/dist/orrery-${app}.mjs`;

/** What the bundle was made from and when its build started (scripts/app-launch.mjs reads it). */
export const bundleInputsPath = (/** @type {string} */ app) => `apps/${app}/dist/orrery-${app}.inputs.json`;

/**
 * What a bin in the repository starts (scripts/app-launch.mjs): the image's bundle, or — when the
 * image leaves packages out (`absent`) — a second bundle that imports those from node_modules, so
 * nothing the source can do is missing.
 */
export const localBundlePath = (/** @type {string} */ app) =>
  Object.keys(APP_BUNDLES[/** @type {keyof typeof APP_BUNDLES} */ (app)]?.absent ?? {}).length ? `apps/${app}/dist/orrery-${app}.local.mjs` : bundlePath(app);

#!/usr/bin/env node
/**
 * `npm run build:apps`: compiles each server app into apps/<app>/dist/orrery-<app>.mjs (+ .map),
 * as scripts/app-bundles.mjs describes: what the images and the process kubelet run.
 *
 *   node scripts/build-apps.mjs [app …]                   build (all five without names)
 *   node scripts/build-apps.mjs --image-root DIR app …    build, then lay out the image's /app in
 *                                                        DIR: the bundle, its assets and the
 *                                                        packages it carries (the Dockerfiles)
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { APP_BUNDLES, APP_NAMES, bundleInputsPath, bundlePath, localBundlePath } from './app-bundles.mjs';
import { makeCodeCache } from '../apps/runtime/boot/make-code-cache.mjs';
import { oneByteSource } from './one-byte-source.mjs';
import { productionClosure } from './production-closure.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const posix = (p) => p.split(sep).join('/');

// CommonJS dependencies call require() (for Node's built-ins); an ES module has none of its own.
const PRELUDE = [
  "import { createRequire as __orreryRequire } from 'node:module';",
  "import { fileURLToPath as __orreryFileURLToPath } from 'node:url';",
  'const require = __orreryRequire(import.meta.url);',
];

/**
 * The project's own modules find files next to their source (the migrations, other apps' bins)
 * through import.meta; in the bundle that would be the dist folder. Each use is rewritten to the
 * source file's place relative to the bundle, so the bundle finds what the source finds.
 */
function sourceLocationPlugin(outDir) {
  return {
    name: 'orrery-source-location',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const file = posix(relative(outDir, args.path));
        const dir = posix(relative(outDir, dirname(args.path))) || '.';
        const contents = text.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_m, what) => {
          if (what === 'url') return `new URL(${JSON.stringify(file)}, import.meta.url).href`;
          return `__orreryFileURLToPath(new URL(${JSON.stringify(what === 'dirname' ? dir : file)}, import.meta.url))`;
        });
        return { contents, loader: /\.[cm]?ts$/.test(extname(args.path)) ? 'ts' : 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/** Packages the image has no use for become a module whose exports throw when used. */
function absentPackagesPlugin(app, absent) {
  const names = Object.keys(absent);
  return {
    name: 'orrery-absent-packages',
    setup(b) {
      if (!names.length) return;
      const filter = new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'orrery-absent' }));
      b.onLoad({ filter: /.*/, namespace: 'orrery-absent' }, (args) => {
        const { why, exports } = absent[args.path];
        const message = `${args.path} is not in the orrery-${app} image: ${why}`;
        const lines = [`const fail = () => { throw new Error(${JSON.stringify(message)}); };`];
        for (const name of exports) lines.push(`export class ${name} { constructor() { fail(); } }`);
        return { contents: lines.join('\n'), loader: 'js' };
      });
    },
  };
}

/**
 * What the bundle was made from, for the bin's freshness check (scripts/app-launch.mjs): the
 * repository's own files esbuild read, plus the lock file and the build scripts standing in for
 * the packages from node_modules.
 */
function bundleInputs(metafile, startedAt) {
  const own = Object.keys(metafile.inputs)
    .filter((p) => !p.includes('node_modules/') && !p.includes(':'))
    .map((p) => posix(relative(ROOT, resolve(process.cwd(), p))));
  return { startedAt, inputs: [...new Set([...own, 'package-lock.json', 'scripts/build-apps.mjs', 'scripts/app-bundles.mjs', 'scripts/one-byte-source.mjs'])].sort() };
}

/** Writes the file beside itself and renames it: a process starting meanwhile never reads half. */
function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

export async function buildApp(app) {
  const spec = APP_BUNDLES[app];
  const outfile = join(ROOT, bundlePath(app));
  const outDir = dirname(outfile);
  // Taken before any source is read: a file saved while the build runs makes the bundle stale.
  const startedAt = Date.now();
  const options = {
    entryPoints: [join(ROOT, 'apps', app, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // Stack traces (--enable-source-maps) need only the mappings; the sources' text in the map
    // cost ~20 MiB of RSS in statesvc alone, since Node parses the whole map at load.
    sourcesContent: false,
    external: [...spec.carried, ...Object.keys(spec.notCarried)],
    plugins: [absentPackagesPlugin(app, spec.absent), sourceLocationPlugin(outDir)],
    banner: { js: [...PRELUDE, ...(spec.banner ? [spec.banner] : [])].join('\n') },
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
    metafile: true,
  };
  const result = await build(options);
  await writeOutputs(result.outputFiles);
  // The image and the local backend start workers from a CommonJS body of the runtime through
  // V8's code cache (apps/runtime/boot/code-cached-boot.mjs); ES modules get no such cache in Node 20.
  if (spec.body) {
    // import() of a package becomes require(): code compiled from V8's cache cannot import() in
    // Node 20. (The runtime imports function modules through its boot: src/load/module-import.ts.)
    const body = await build({ ...options, format: 'cjs', supported: { 'dynamic-import': false }, outfile: join(ROOT, spec.body.file), sourcemap: false, banner: { js: spec.banner ?? '' }, metafile: false });
    await writeOutputs(body.outputFiles);
    // Made by this node: the image's build stage runs the node of its runtime stage.
    await makeCodeCache(join(ROOT, spec.body.file), join(ROOT, spec.body.cache));
  }
  // The bins in the repository start the app with everything its source can do (statesvc on
  // embedded PGlite, `orrery up`): where the image leaves packages out, a second bundle imports
  // them from node_modules instead (scripts/app-launch.mjs).
  const local = localBundlePath(app);
  if (local !== bundlePath(app)) {
    const repo = await build({ ...options, outfile: join(ROOT, local), external: [...options.external, ...Object.keys(spec.absent)], plugins: [sourceLocationPlugin(outDir)] });
    await writeOutputs(repo.outputFiles);
  }
  writeAtomically(join(ROOT, bundleInputsPath(app)), JSON.stringify(bundleInputs(result.metafile, startedAt)));
  return outfile;
}

/** Writes a build's files, each bundle with a one-byte source (scripts/one-byte-source.mjs). */
async function writeOutputs(files) {
  for (const f of files) {
    if (!f.path.endsWith('.mjs')) {
      writeAtomically(f.path, f.contents);
      continue;
    }
    const narrowed = await oneByteSource(f.text);
    if (narrowed.reason) console.warn(`${relative(ROOT, f.path)}: kept two-byte source (${narrowed.reason})`);
    writeAtomically(f.path, narrowed.code);
  }
}

/** The image's /app: the bundle and its map, the assets, the carried packages and their dependencies. */
export function layOutImage(app, imageRoot) {
  const spec = APP_BUNDLES[app];
  const copy = (rel, filter) => cpSync(join(ROOT, rel), join(imageRoot, rel), { recursive: true, dereference: true, filter });
  // The bundle and its map only: not the repository's own launch files (the inputs list, the local
  // bundle); the runtime's code-cached body, its cache and the boot that starts them.
  const image = new Set([bundlePath(app), `${bundlePath(app)}.map`, ...(spec.body ? [spec.body.file, spec.body.cache] : [])].map((f) => join(ROOT, f)));
  copy(posix(dirname(bundlePath(app))), (src) => src === join(ROOT, dirname(bundlePath(app))) || image.has(src));
  for (const boot of spec.body?.boot ?? []) copy(boot);
  for (const asset of spec.assets) copy(asset);
  for (const pkg of productionClosure(ROOT, spec.carried)) {
    // Nested node_modules are in the closure themselves, as far as they are needed.
    const nested = join(ROOT, pkg, 'node_modules');
    copy(pkg, (src) => src !== nested);
  }
}

async function main() {
  const { values, positionals } = parseArgs({ options: { 'image-root': { type: 'string' } }, allowPositionals: true });
  const unknown = positionals.filter((a) => !APP_NAMES.includes(a));
  if (unknown.length) {
    console.error(`build-apps: no app ${unknown.join(', ')}; the apps are ${APP_NAMES.join(', ')}`);
    process.exit(2);
  }
  const imageRoot = values['image-root'];
  if (imageRoot && positionals.length === 0) {
    console.error('build-apps: --image-root needs the app(s) the image runs');
    process.exit(2);
  }
  if (imageRoot) {
    // The folder is emptied first: never one that holds the checkout (or is it).
    const target = resolve(imageRoot);
    if (`${ROOT}${sep}`.startsWith(`${target}${sep}`) || target === dirname(target)) {
      console.error(`build-apps: --image-root ${imageRoot} holds the repository; give an empty folder of its own`);
      process.exit(2);
    }
    rmSync(target, { recursive: true, force: true });
  }
  for (const app of positionals.length ? positionals : APP_NAMES) {
    const started = performance.now();
    const file = await buildApp(app);
    if (imageRoot) layOutImage(app, imageRoot);
    console.log(`built ${posix(relative(ROOT, file))} in ${Math.round(performance.now() - started)} ms${imageRoot ? ` (image files in ${imageRoot})` : ''}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

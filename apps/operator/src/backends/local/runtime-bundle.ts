import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RuntimeCommand {
  command: string;
  args: string[];
}

const RUNTIME_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'runtime');
/** Started through tsx: TypeScript source, no build step (slow to start: see below). */
export const TSX_RUNTIME_BIN = join(RUNTIME_DIR, 'bin', 'orrery-runtime.mjs');
/** Starts the runtime's CommonJS body through V8's code cache (see the file). */
export const CODE_CACHED_BOOT = join(RUNTIME_DIR, 'boot', 'code-cached-boot.mjs');
/** Makes that cache for a body (see the file). */
const MAKE_CODE_CACHE = join(RUNTIME_DIR, 'boot', 'make-code-cache.mjs');
/** Under node_modules, so the bundle resolves the packages it leaves out (tsx) as the source does. */
const BUNDLE_DIR = join(RUNTIME_DIR, '..', '..', 'node_modules', '.cache', 'orrery-runtime');
// Read by apps/runtime/src/load/typescript-loader.ts (registers tsx only for file/URL sources).
// `require` for the CommonJS dependencies bundled into ESM (pino: node builtins), as in the CLI's bundle.
const BUNDLED_FLAG = `globalThis[Symbol.for('orrery.runtime.bundled')] = true;`;
const BANNER = `import { createRequire as __orreryRequire } from 'node:module';\nconst require = __orreryRequire(import.meta.url);\n${BUNDLED_FLAG}`;

/**
 * How the local backend starts `orrery-runtime`. Through tsx, a worker takes ~3× a bare node
 * process to listen (tsx's loader thread and the runtime's TypeScript modules: 300–500 ms on
 * this machine) — the largest share of a deploy-executor cold start. So the operator compiles
 * the runtime once, at start, into one JavaScript file that plain `node` runs; tsx is registered
 * inside a worker only for file or URL sources (which may be TypeScript), not for inline code. `ORRERY_RUNTIME_BUNDLE=0`, or a
 * failed build, falls back to tsx.
 *
 * By default that file is a CommonJS body started through V8's code cache (codeCachedCommand:
 * ~9 ms less per worker start); `ORRERY_RUNTIME_CODE_CACHE=0`, or a failure to build the body or
 * make its cache, runs the ES module bundle instead (the form the images run).
 */
export async function runtimeCommand(log: (msg: string) => void = () => {}, opts: { reuseAppBundle?: boolean; codeCache?: boolean } = {}): Promise<RuntimeCommand> {
  const viaTsx = { command: process.execPath, args: [TSX_RUNTIME_BIN] };
  if (process.env.ORRERY_RUNTIME_BUNDLE === '0') return viaTsx;
  if (opts.codeCache ?? process.env.ORRERY_RUNTIME_CODE_CACHE !== '0') {
    try {
      return await codeCachedCommand(log, opts);
    } catch (err) {
      log(`runtime code cache unavailable (${(err as Error).message}); workers compile the ES module bundle`);
    }
  }
  // `npm run build:apps` already compiled it (the image's bundle): no second build while that is fresh.
  const built = opts.reuseAppBundle === false ? undefined : await freshAppBundle();
  if (built) {
    log(`runtime runs from its fresh build:apps bundle: ${built}`);
    return { command: process.execPath, args: [built] };
  }
  try {
    const started = performance.now();
    const file = contentAddressed(await buildRuntime('esm'), 'mjs');
    log(`runtime bundled for plain node in ${Math.round(performance.now() - started)} ms: ${file}`);
    return { command: process.execPath, args: [file] };
  } catch (err) {
    log(`runtime bundle failed (${(err as Error).message}); workers start through tsx`);
    return viaTsx;
  }
}

/** The runtime compiled into one file: an ES module (the image's form), or a CommonJS body for the code-cached boot. */
async function buildRuntime(format: 'esm' | 'cjs'): Promise<Uint8Array> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(RUNTIME_DIR, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    format,
    // In the CommonJS body, import() of a package becomes require(): code compiled from V8's cache
    // cannot import() in Node 20 (function modules go through the boot: module-import.ts).
    ...(format === 'cjs' ? { supported: { 'dynamic-import': false } } : {}),
    target: `node${process.versions.node.split('.')[0]}`,
    // OpenTelemetry stays in node_modules: a worker with tracing off never loads the SDK (docs/tracing.md).
    external: ['tsx', 'tsx/*', '@opentelemetry/*'],
    // CommonJS has its own `require`.
    banner: { js: format === 'esm' ? BANNER : BUNDLED_FLAG },
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.contents;
}

/** Content-addressed and renamed into place: operators starting side by side never see half a file. */
function contentAddressed(code: Uint8Array, ext: string): string {
  const file = join(BUNDLE_DIR, `orrery-runtime-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.${ext}`);
  if (existsSync(file)) return file;
  mkdirSync(BUNDLE_DIR, { recursive: true, mode: 0o755 });
  const tmp = `${file}.tmp-${process.pid}`;
  // Code every worker runs: never writable by anyone but its owner, whatever the umask.
  writeFileSync(tmp, code, { mode: 0o644 });
  renameSync(tmp, file);
  return file;
}

/**
 * `node code-cached-boot.mjs <body> <cache>`: the runtime's CommonJS body (build:apps's when
 * fresh, else compiled here) and V8's code cache of it, made here once per body and node
 * (apps/runtime/boot/code-cached-boot.mjs says why: ~9 ms of each worker's start).
 */
async function codeCachedCommand(log: (msg: string) => void, opts: { reuseAppBundle?: boolean }): Promise<RuntimeCommand> {
  const freshBody = opts.reuseAppBundle === false ? undefined : await freshAppBody();
  const started = performance.now();
  const body = freshBody && existsSync(freshBody) ? freshBody : contentAddressed(await buildRuntime('cjs'), 'cjs');
  // V8 rejects a cache made by another node or with other flags, but checks the source only by
  // its length: the name holds the body's content hash, so a changed body never meets an old cache.
  const key = createHash('sha256').update(readFileSync(body)).update(`${process.execPath}\0${process.version}`).digest('hex').slice(0, 16);
  const cache = join(BUNDLE_DIR, `orrery-runtime-${key}.v8cache`);
  if (!existsSync(cache)) {
    await makeCodeCache(body, cache);
    log(`runtime code cache made in ${Math.round(performance.now() - started)} ms: ${cache} (body ${body})`);
  } else {
    log(`runtime runs from ${body} with its code cache ${cache}`);
  }
  return { command: process.execPath, args: [CODE_CACHED_BOOT, body, cache] };
}

/**
 * Runs apps/runtime/boot/make-code-cache.mjs (a worker of its own, one request, the cache it
 * writes at exit; the same maker build:apps uses for the image) and waits for it.
 */
async function makeCodeCache(body: string, cache: string): Promise<void> {
  mkdirSync(BUNDLE_DIR, { recursive: true, mode: 0o755 });
  const child = spawn(process.execPath, [MAKE_CODE_CACHE, body, cache], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(stderr.trim() || `make-code-cache exited ${code}`);
}

const REPO_ROOT = join(RUNTIME_DIR, '..', '..');

/** The runtime's build:apps bundle when it is fresh (scripts/app-launch.mjs decides, as for the bins). */
async function freshAppBundle(): Promise<string | undefined> {
  try {
    const launch = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'app-launch.mjs')).href)) as { freshBundle(app: string): string | undefined };
    return launch.freshBundle('runtime');
  } catch {
    // Outside the repository (no scripts/): compile as below.
    return undefined;
  }
}

/** The CommonJS body build:apps writes beside that bundle (scripts/app-bundles.mjs names it), when the bundle is fresh. */
async function freshAppBody(): Promise<string | undefined> {
  if (!(await freshAppBundle())) return undefined;
  const bundles = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'app-bundles.mjs')).href)) as { APP_BUNDLES: { runtime: { body?: { file: string } } } };
  const body = bundles.APP_BUNDLES.runtime.body?.file;
  return body === undefined ? undefined : join(REPO_ROOT, body);
}

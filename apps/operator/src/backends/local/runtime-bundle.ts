import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RuntimeCommand {
  command: string;
  args: string[];
}

const RUNTIME_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'runtime');
/** Started through tsx: TypeScript source, no build step (slow to start: see below). */
export const TSX_RUNTIME_BIN = join(RUNTIME_DIR, 'bin', 'orrery-runtime.mjs');
/** Under node_modules, so the bundle resolves the packages it leaves out (tsx) as the source does. */
const BUNDLE_DIR = join(RUNTIME_DIR, '..', '..', 'node_modules', '.cache', 'orrery-runtime');
// Read by apps/runtime/src/load/typescript-loader.ts (registers tsx only for file/URL sources).
// `require` for the CommonJS dependencies bundled into ESM (pino: node builtins), as in the CLI's bundle.
const BANNER = `import { createRequire as __orreryRequire } from 'node:module';\nconst require = __orreryRequire(import.meta.url);\nglobalThis[Symbol.for('orrery.runtime.bundled')] = true;`;

/**
 * How the local backend starts `orrery-runtime`. Through tsx, a worker takes ~3× a bare node
 * process to listen (tsx's loader thread and the runtime's TypeScript modules: 300–500 ms on
 * this machine) — the largest share of a deploy-executor cold start. So the operator compiles
 * the runtime once, at start, into one JavaScript file that plain `node` runs; tsx is registered
 * inside a worker only for file or URL sources (which may be TypeScript), not for inline code. `ORRERY_RUNTIME_BUNDLE=0`, or a
 * failed build, falls back to tsx.
 */
export async function runtimeCommand(log: (msg: string) => void = () => {}, opts: { reuseAppBundle?: boolean } = {}): Promise<RuntimeCommand> {
  const viaTsx = { command: process.execPath, args: [TSX_RUNTIME_BIN] };
  if (process.env.ORRERY_RUNTIME_BUNDLE === '0') return viaTsx;
  // `npm run build:apps` already compiled it (the image's bundle): no second build while that is fresh.
  const built = opts.reuseAppBundle === false ? undefined : await freshAppBundle();
  if (built) {
    log(`runtime runs from its fresh build:apps bundle: ${built}`);
    return { command: process.execPath, args: [built] };
  }
  try {
    const started = performance.now();
    const { build } = await import('esbuild');
    const out = await build({
      entryPoints: [join(RUNTIME_DIR, 'src', 'main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      // OpenTelemetry stays in node_modules: a worker with tracing off never loads the SDK (docs/tracing.md).
      external: ['tsx', 'tsx/*', '@opentelemetry/*'],
      banner: { js: BANNER },
      write: false,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]!.contents;
    // Content-addressed and renamed into place: operators starting side by side never see half a file.
    const file = join(BUNDLE_DIR, `orrery-runtime-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
    mkdirSync(BUNDLE_DIR, { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
    log(`runtime bundled for plain node in ${Math.round(performance.now() - started)} ms: ${file}`);
    return { command: process.execPath, args: [file] };
  } catch (err) {
    log(`runtime bundle failed (${(err as Error).message}); workers start through tsx`);
    return viaTsx;
  }
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

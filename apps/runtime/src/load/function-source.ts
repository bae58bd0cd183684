import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { LoadError } from './load-error.ts';
import { packageModulePath } from './package-main.ts';

/**
 * Where code comes from: exactly one of inline text, a local file, an http(s) URL, or a built
 * package folder (`dir`, with `main` relative to it: docs/packages.md).
 */
export interface FunctionSource {
  inline?: string;
  file?: string;
  url?: string;
  dir?: string;
  /** With `dir`: the module to load (default: package.json "main", else index.mjs, else index.js). */
  main?: string;
}

export interface MaterializeOptions {
  /** Directory for inline and downloaded code (the worker's work dir). */
  workDir: string;
  /** Cap for inline and downloaded code; default 8 MiB. */
  maxBytes?: number;
  fetch?: typeof fetch;
  /** Download timeout; default 30 s. */
  fetchTimeoutMs?: number;
}

export const DEFAULT_MAX_SOURCE_BYTES = 8 * 1024 * 1024;
const MODULE_EXTENSIONS = new Set(['.mjs', '.js', '.cjs', '.ts', '.mts', '.cts']);

/**
 * Turns a source into a module file on disk that `import()` can load. Inline and
 * downloaded code is written under a content-addressed name, so loading new code never
 * hits the module cache of the old and the same code is written once.
 */
export async function materializeSource(source: FunctionSource, opts: MaterializeOptions): Promise<string> {
  const given = (['inline', 'file', 'url', 'dir'] as const).filter((k) => source[k] !== undefined);
  if (given.length !== 1) {
    throw new LoadError('source_invalid', `give exactly one of source inline, file, url or dir (got ${given.length ? given.join(', ') : 'none'})`);
  }
  if (source.main !== undefined && source.dir === undefined) throw new LoadError('source_invalid', 'source main goes with source dir (a package folder)');
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_SOURCE_BYTES;

  // A package is imported where it was built, so `import 'dep'` finds its node_modules.
  if (source.dir !== undefined) return packageModulePath(source.dir, source.main);

  if (source.file !== undefined) {
    const path = isAbsolute(source.file) ? source.file : resolve(source.file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) throw new LoadError('source_not_found', `source file ${path} does not exist or is not a file`);
    return path;
  }

  if (source.inline !== undefined) {
    const bytes = Buffer.from(source.inline, 'utf8');
    if (bytes.length === 0) throw new LoadError('source_invalid', 'inline source is empty');
    if (bytes.length > maxBytes) throw new LoadError('source_too_large', `inline source is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
    return writeContentAddressed(opts.workDir, bytes, '.mjs');
  }

  const url = parseHttpUrl(source.url!);
  const bytes = await download(url, maxBytes, opts.fetch ?? fetch, opts.fetchTimeoutMs ?? 30_000);
  const ext = extname(url.pathname);
  return writeContentAddressed(opts.workDir, bytes, MODULE_EXTENSIONS.has(ext) ? ext : '.mjs');
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LoadError('source_invalid', `source url "${text}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LoadError('source_invalid', `source url must be http(s), got ${url.protocol}`);
  }
  return url;
}

async function download(url: URL, maxBytes: number, doFetch: typeof fetch, timeoutMs: number): Promise<Buffer> {
  // Never echo query strings: presigned URLs carry credentials there.
  const shown = `${url.origin}${url.pathname}`;
  let res: Response;
  try {
    res = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (err) {
    throw new LoadError('source_fetch_failed', `cannot fetch source ${shown}: ${(err as Error).message}`, { cause: err });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new LoadError('source_fetch_failed', `fetching source ${shown} answered HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new LoadError('source_too_large', `source ${shown} is ${declared} bytes, over the ${maxBytes}-byte limit`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel();
          throw new LoadError('source_too_large', `source ${shown} exceeds the ${maxBytes}-byte limit`);
        }
        chunks.push(value);
      }
    } catch (err) {
      if (err instanceof LoadError) throw err;
      throw new LoadError('source_fetch_failed', `reading source ${shown} failed: ${(err as Error).message}`, { cause: err });
    }
  }
  if (size === 0) throw new LoadError('source_invalid', `source ${shown} is empty`);
  return Buffer.concat(chunks);
}

async function writeContentAddressed(dir: string, bytes: Buffer, ext: string): Promise<string> {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const path = join(dir, `function-${digest}${ext}`);
  // Synchronous on purpose: this is on a cold start's path (a pool worker's specialization, a
  // deploy worker's start) where the worker serves nothing else yet, and the async calls were
  // four thread-pool round trips (mkdir, then writeFile's open, write, close): ~0.5 ms idle,
  // several ms on a loaded machine. The work dir usually exists (warm-up wrote there): mkdir
  // only when the write says it is missing.
  const write = () => writeFileSync(path, bytes, { mode: 0o444, flag: 'wx' });
  try {
    try {
      write();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dir, { recursive: true });
      write();
    }
  } catch (err) {
    // Written read-only; an existing file with this name already holds these bytes.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return path;
}

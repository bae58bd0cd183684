/**
 * The operator's per-worker log files: `<data-dir>/logs/<namespace>/<function>/<worker>.log`,
 * where a worker id is `<revision>-<n>` (the n-th worker the operator started). Reading them
 * directly works while the operator runs and after it stopped.
 */
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface LogFile {
  path: string;
  worker: string;
  revision: string;
}

const WORKER = /^(.+)-(\d+)\.log$/;

export function functionLogDir(dataDir: string, namespace: string, fn: string): string {
  return join(dataDir, 'logs', namespace, fn);
}

/** Log files of a function (optionally one revision), oldest worker first. */
export function listLogFiles(dir: string, revision?: string): LogFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<LogFile & { n: number }> = [];
  for (const name of names) {
    const m = WORKER.exec(name);
    if (!m) continue;
    if (revision && m[1] !== revision) continue;
    out.push({ path: join(dir, name), worker: name.slice(0, -4), revision: m[1]!, n: Number(m[2]) });
  }
  return out.sort((a, b) => a.revision.localeCompare(b.revision) || a.n - b.n).map(({ n: _n, ...f }) => f);
}

/** Reads complete lines appended since `offset`; a trailing partial line waits for its newline. */
export function readNewLines(path: string, offset: number): { lines: string[]; offset: number } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { lines: [], offset };
  }
  if (size < offset) offset = 0; // truncated or replaced: start over
  if (size === offset) return { lines: [], offset };
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    const n = readSync(fd, buf, 0, buf.length, offset);
    const text = buf.subarray(0, n).toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) return { lines: [], offset };
    return { lines: text.slice(0, end).split('\n'), offset: offset + Buffer.byteLength(text.slice(0, end + 1)) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Pool-executor workers start generic and log under `<data-dir>/logs/<namespace>/pool/`; each is
 * specialized once, for one revision, and from then on its JSON log lines carry `function` and
 * `revision`. These are the files of that directory, oldest worker first.
 */
export function poolLogDir(dataDir: string, namespace: string): string {
  return join(dataDir, 'logs', namespace, 'pool');
}

const POOL_WORKER = /^(.+)-(\d+)\.log$/;

export function listPoolLogFiles(dir: string): LogFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: POOL_WORKER.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => a.m[1]!.localeCompare(b.m[1]!) || Number(a.m[2]) - Number(b.m[2]))
    .map(({ name }) => ({ path: join(dir, name), worker: name.slice(0, -4), revision: '' }));
}

/**
 * Where a pool worker starts serving `fn` (the first JSON line naming it, e.g. "function
 * loaded"); -1 while it serves something else or nothing yet.
 */
export function specializationStart(lines: readonly string[], fn: string, revision?: string): { index: number; revision: string } {
  for (const [index, line] of lines.entries()) {
    if (!line.startsWith('{') || !line.includes(`"function":${JSON.stringify(fn)}`)) continue;
    try {
      const parsed = JSON.parse(line) as { function?: unknown; revision?: unknown };
      if (parsed.function !== fn || typeof parsed.revision !== 'string') continue;
      if (revision && parsed.revision !== revision) return { index: -1, revision: parsed.revision };
      return { index, revision: parsed.revision };
    } catch {
      // not a log record: keep looking
    }
  }
  return { index: -1, revision: '' };
}

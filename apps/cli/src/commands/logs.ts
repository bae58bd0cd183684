import { existsSync } from 'node:fs';
import { resolveConnection } from '../connection/resolve-connection.ts';
import { functionLogDir, listLogFiles, listPoolLogFiles, poolLogDir, readNewLines, specializationStart } from '../logs/worker-logs.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = "print a function's worker logs (--revision R, -f to follow)";

const HELP = `usage: orrery logs <function> [-n namespace] [--revision R] [-f] [--tail N] [--data-dir DIR]

Prints the logs the operator keeps per worker under <data-dir>/logs/<namespace>/<function>/,
each line prefixed with the worker id ([<revision>-<n>]). Pool-executor functions run in
generic workers (<data-dir>/logs/<namespace>/pool/): a pool worker's log is shown from the
moment it was specialized for the function, prefixed [<pool worker> <revision>]. -f keeps following: appended lines
and workers started later appear as they come (Ctrl-C stops). --tail N prints only the last N
lines of each file first. The data directory: --data-dir, $ORRERY_DATA_DIR, dataDir from
.orrery/platform.json, else ./.orrery.`;

/** The flags, exported for `orrery completion`. */
export const options = {
  namespace: { type: 'string', short: 'n' },
  revision: { type: 'string', short: 'r' },
  follow: { type: 'boolean', short: 'f' },
  tail: { type: 'string' },
  'data-dir': { type: 'string' },
  'poll-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('logs', HELP, argv, {
    options,
    allowPositionals: true,
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`orrery logs: name exactly one function\n\n${HELP}`);
    return 2;
  }
  const tail = values.tail === undefined ? -1 : Number(values.tail);
  if (!Number.isInteger(tail) || tail < -1) {
    console.error('orrery logs: --tail must be a non-negative integer');
    return 2;
  }
  const conn = resolveConnection({ dataDir: values['data-dir'] });
  const fn = positionals[0]!;
  const dir = functionLogDir(conn.dataDir, values.namespace ?? 'default', fn);
  const poolDir = poolLogDir(conn.dataDir, values.namespace ?? 'default');
  const poolFiles = () => listPoolLogFiles(poolDir);
  const poolServes = (path: string) => specializationStart(readNewLines(path, 0).lines, fn, values.revision).index >= 0;
  if (!existsSync(dir) && !poolFiles().some((f) => poolServes(f.path)) && !values.follow) {
    console.error(`orrery logs: no logs for ${positionals[0]} under ${dir} (has it run? is --data-dir right?)`);
    return 1;
  }
  const offsets = new Map<string, number>();
  /** Pool log file → the revision it serves ('' = not this function). */
  const poolRevision = new Map<string, string>();
  const pump = (first: boolean): void => {
    for (const f of listLogFiles(dir, values.revision)) {
      const { lines, offset } = readNewLines(f.path, offsets.get(f.path) ?? 0);
      offsets.set(f.path, offset);
      const shown = first && tail >= 0 ? lines.slice(Math.max(0, lines.length - tail)) : lines;
      if (shown.length > 0) process.stdout.write(shown.map((l) => `[${f.worker}] ${l}\n`).join(''));
    }
    for (const f of poolFiles()) {
      if (poolRevision.get(f.path) === '') continue; // serves another function: never ours
      const { lines, offset } = readNewLines(f.path, offsets.get(f.path) ?? 0);
      offsets.set(f.path, offset);
      let from = 0;
      if (!poolRevision.has(f.path)) {
        const start = specializationStart(lines, fn, values.revision);
        if (start.index < 0) {
          if (start.revision) poolRevision.set(f.path, ''); // specialized for another revision
          else if (lines.some((l) => l.includes('"function":"') && !l.includes(`"function":${JSON.stringify(fn)}`))) poolRevision.set(f.path, '');
          continue;
        }
        poolRevision.set(f.path, start.revision);
        from = start.index;
      }
      let shown = lines.slice(from);
      if (first && tail >= 0) shown = shown.slice(Math.max(0, shown.length - tail));
      if (shown.length > 0) process.stdout.write(shown.map((l) => `[${f.worker} ${poolRevision.get(f.path)}] ${l}\n`).join(''));
    }
  };
  pump(true);
  if (!values.follow) return 0;
  const pollMs = Number(values['poll-ms'] ?? 500);
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => pump(false), pollMs);
    const stop = () => {
      clearInterval(timer);
      pump(false);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/**
 * The last errors among a function's worker log lines, for `orrery describe`: the runtime's
 * JSON lines at level error/fatal, its plain `orrery-runtime: …` failures (a module that does
 * not load), the operator's note of a worker exiting with an error, and the stderr lines a
 * crash leaves (an uncaught `SyntaxError: …`), without the stack frames under them. Repeats
 * in a row (a crash loop) are one entry with a count.
 */
export interface WorkerLine {
  worker: string;
  line: string;
}

export interface WorkerError {
  worker: string;
  /** ISO time when the line says (JSON lines); absent for plain stderr. */
  ts?: string;
  message: string;
  /** How many times in a row it was logged. */
  count?: number;
}

const RUNTIME_FAILURE = /^orrery-runtime: /;
const WORKER_EXIT = /^\[orrery-operator\] worker \S+ exited code=(\S+) signal=(\S+)/;
const PLAIN_ERROR = /^(Uncaught\s+)?([A-Z]\w*Error|Error|Exception)\b.*:|\b(uncaught|unhandled)\b/i;
const MAX_MESSAGE = 300;

function asError(w: WorkerLine): WorkerError | undefined {
  const line = w.line.trim();
  if (line.startsWith('{')) {
    try {
      const j = JSON.parse(line) as { level?: unknown; msg?: unknown; ts?: unknown; error?: unknown; err?: unknown };
      if (j.level !== 'error' && j.level !== 'fatal') return undefined;
      const detail = typeof j.error === 'string' ? j.error : typeof j.err === 'string' ? j.err : '';
      const message = [typeof j.msg === 'string' ? j.msg : '', detail].filter(Boolean).join(': ');
      return { worker: w.worker, ...(typeof j.ts === 'string' ? { ts: j.ts } : {}), message: message || line };
    } catch {
      // not JSON after all: judged as plain text below
    }
  }
  const exit = WORKER_EXIT.exec(line);
  if (exit) return exit[1] !== '0' || exit[2] !== 'null' ? { worker: w.worker, message: line.replace('[orrery-operator] ', '') } : undefined;
  if (/^at\s/.test(line) || !(RUNTIME_FAILURE.test(line) || PLAIN_ERROR.test(line))) return undefined;
  return { worker: w.worker, message: line };
}

/** The newest `limit` errors, oldest first; long messages cut at 300 characters. */
export function lastWorkerErrors(lines: readonly WorkerLine[], limit = 5): WorkerError[] {
  const errors: WorkerError[] = [];
  for (const e of lines.map(asError)) {
    if (!e) continue;
    const prev = errors.at(-1);
    if (prev && prev.worker === e.worker && prev.message === e.message) prev.count = (prev.count ?? 1) + 1;
    else errors.push(e);
  }
  return errors.slice(Math.max(0, errors.length - limit)).map((e) => (e.message.length > MAX_MESSAGE ? { ...e, message: `${e.message.slice(0, MAX_MESSAGE)}…` } : e));
}

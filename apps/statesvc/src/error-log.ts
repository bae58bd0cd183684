/**
 * The server-side half of a 5xx: what a driver or database said, for the statesvc log only
 * (responses carry the fixed STATE_GENERIC_ERROR_MESSAGE). Pure except for the clock and the
 * sink handed in.
 *
 * - Secrets are cut by @orrery/log's redaction list: passwords in URLs (`postgres://user:***@host`),
 *   `password=`/`token=`-style pairs, bearer tokens, long hex strings (tokens and keys are hex),
 *   drizzle's `params: …` line (the request's keys and values: user data, not the operator's to
 *   read), and every secret the process registered at start.
 * - Control characters are escaped and continuation lines indented, so text that came from a
 *   request cannot forge a log line of its own.
 * - Bounded: at most MAX_DETAIL characters per entry, and at most `burst` entries per code per
 *   window; the rest are counted and the count is logged with the next entry that gets through
 *   (a database outage under load does not flood the log).
 */

import { redactText } from '@orrery/log';

export const MAX_DETAIL = 4_000;

/** The secret rules every component's log shares (@orrery/log's redaction list). */
export const redactSecrets = redactText;

/** Control characters as \u escapes; a line break stays, but the next line is indented. */
export function escapeForLog(text: string): string {
  return text.replace(/\r\n|\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => (c === '\n' || c === '\r\n' ? '\n    ' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** A thrown value that is not an Error. */
function describe(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return `${typeof v} ${JSON.stringify(v) ?? ''}`;
  } catch {
    return typeof v;
  }
}

/** The message, the stack (own code's frames) and the chain of causes of an error, for the log. */
export function errorDetail(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== undefined && e !== null; depth++) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      const head = `${e.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${e.message}`;
      const frames = depth === 0 && e.stack ? e.stack.split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 8) : [];
      parts.push([head, ...frames.map((f) => f.trim())].join('\n'));
      e = e.cause;
    } else {
      parts.push(describe(e));
      break;
    }
  }
  const text = escapeForLog(redactSecrets(parts.join('\ncaused by: ')));
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}… (${text.length - MAX_DETAIL} more characters)` : text;
}

/** Logs errors by code, at most `burst` entries per code per `windowMs`. */
export class ErrorLog {
  private readonly windows = new Map<string, { start: number; logged: number; suppressed: number }>();

  constructor(
    private readonly sink: (line: string) => void,
    private readonly burst = 5,
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  report(code: string, err: unknown): void {
    const t = this.now();
    let w = this.windows.get(code);
    if (!w || t - w.start >= this.windowMs) {
      const suppressed = w?.suppressed ?? 0;
      w = { start: t, logged: 0, suppressed };
      this.windows.set(code, w);
    }
    if (w.logged >= this.burst) {
      w.suppressed++;
      return;
    }
    w.logged++;
    const more = w.suppressed > 0 ? ` (${w.suppressed} more like it not logged)` : '';
    w.suppressed = 0;
    this.sink(`${code === 'internal' ? 'internal error' : code}: ${errorDetail(err)}${more}`);
  }
}

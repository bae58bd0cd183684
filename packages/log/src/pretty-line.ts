/**
 * The human form of one JSON log record, for a terminal:
 * `05:40:01.123 INFO  router [req-1] routes loaded: 3 functions {"extra":1}`.
 * Built in (no pino-pretty: a dozen dependencies for a few lines of formatting).
 */

const COLORS: Record<string, string> = { trace: '90', debug: '36', info: '32', warn: '33', error: '31', fatal: '35' };
const SHOWN_BY_LAYOUT = new Set(['level', 'time', 'component', 'reqId', 'msg']);

/** A field's text: strings as they are, anything else as JSON. */
const text = (v: unknown): string => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

export function prettyLine(line: string, color: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = text(record.level);
  const time = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const head = color && COLORS[level] ? `\u001b[${COLORS[level]}m${label}\u001b[0m` : label;
  const reqId = record.reqId === undefined ? '' : ` [${text(record.reqId)}]`;
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !SHOWN_BY_LAYOUT.has(k)));
  const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
  return `${time} ${head} ${text(record.component)}${reqId} ${text(record.msg)}${extra}\n`;
}

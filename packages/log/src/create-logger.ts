/**
 * Every Orrery component's log: pino JSON lines `{"level","time","component",["reqId"],…,"msg"}`
 * on stderr (stdout carries only a server's `listening …` line), or the same records in a
 * human form on a terminal. Every string a record carries passes redaction.ts first.
 */
import pino from 'pino';
import { DEFAULT_LOG_LEVEL, resolveLogFormat, type LogFormat, type LogLevel } from './log-settings.ts';
import { prettyLine } from './pretty-line.ts';
import { FIELD_REDACT_PATHS, REDACTED, redactFields, redactText } from './redaction.ts';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose records all carry `bindings` (e.g. `{ reqId }`). */
  child(bindings: LogFields): Logger;
  isLevelEnabled(level: LogLevel): boolean;
}

/** Where records go: anything with a `write(line)` (a test's array, a file stream). */
export interface LogDestination {
  write(line: string): unknown;
}

export interface LoggerOptions {
  /** The component's name in every record: router, statesvc, registry, runtime, … */
  component: string;
  /** Default: info (components resolve --log-level / ORRERY_LOG_LEVEL with resolveLogLevel). */
  level?: LogLevel;
  /** Default: ORRERY_LOG_FORMAT, else pretty when the destination is a terminal. */
  format?: LogFormat;
  /** Default: stderr, written synchronously (a record before process.exit is not lost). */
  destination?: LogDestination;
}

export function createLogger(o: LoggerOptions): Logger {
  const toStderr = o.destination === undefined;
  const stderrIsTerminal = toStderr && process.stderr.isTTY === true;
  // A bad ORRERY_LOG_FORMAT is the component's usage error to report (resolveLogFormat); here it is JSON.
  const fromEnv = resolveLogFormat(process.env, stderrIsTerminal);
  const format = o.format ?? (fromEnv.ok ? fromEnv.value : 'json');
  const sink: LogDestination = o.destination ?? pino.destination({ fd: 2, sync: true });
  const stream: LogDestination = format === 'pretty' ? { write: (line: string) => sink.write(prettyLine(line, stderrIsTerminal)) } : sink;
  const root = pino(
    {
      level: o.level ?? DEFAULT_LOG_LEVEL,
      base: { component: o.component },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...FIELD_REDACT_PATHS], censor: REDACTED },
    },
    stream,
  );
  return wrap(root);
}

function wrap(p: pino.Logger): Logger {
  // Redaction runs only for records that are written: a disabled level costs one comparison.
  const emit = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: LogFields) => {
    if (!p.isLevelEnabled(level)) return;
    p[level]((fields ? redactFields(fields) : {}) as object, redactText(msg));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (bindings) => wrap(p.child(redactFields(bindings) as LogFields)),
    isLevelEnabled: (level) => p.isLevelEnabled(level),
  };
}

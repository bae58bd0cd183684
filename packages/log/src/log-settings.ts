/**
 * Level and format of a component's log, from its `--log-level` flag and the environment
 * (ORRERY_LOG_LEVEL, ORRERY_LOG_FORMAT). Pure: a bad value is an answer, not a throw, so each
 * component reports it as the usage error it is.
 */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

export type Setting<T> = { ok: true; value: T } | { ok: false; message: string };

/** The flag wins over ORRERY_LOG_LEVEL; neither → info. */
export function resolveLogLevel(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): Setting<LogLevel> {
  const [raw, source] = flag !== undefined ? [flag, '--log-level'] : [env.ORRERY_LOG_LEVEL || undefined, 'ORRERY_LOG_LEVEL'];
  if (raw === undefined) return { ok: true, value: DEFAULT_LOG_LEVEL };
  const value = raw.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(value)) return { ok: true, value: value as LogLevel };
  return { ok: false, message: `${source} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(raw)}` };
}

/**
 * ORRERY_LOG_FORMAT=json|pretty wins; unset → pretty when the log goes to a terminal (a person
 * reads it), JSON lines otherwise (a collector reads them).
 */
export function resolveLogFormat(env: Readonly<Record<string, string | undefined>>, toTerminal: boolean): Setting<LogFormat> {
  const raw = env.ORRERY_LOG_FORMAT || undefined;
  if (raw === undefined) return { ok: true, value: toTerminal ? 'pretty' : 'json' };
  const value = raw.trim().toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(value)) return { ok: true, value: value as LogFormat };
  return { ok: false, message: `ORRERY_LOG_FORMAT must be json or pretty, got ${JSON.stringify(raw)}` };
}

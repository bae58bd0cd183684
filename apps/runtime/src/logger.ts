/**
 * JSON-lines logger on stderr (stdout carries only the `listening …` line).
 * Callers must never pass secrets; the runtime never logs state tokens.
 */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

export function createLogger(
  base: Record<string, unknown> = {},
  opts: { level?: string; write?: (line: string) => void } = {},
): Logger {
  const min = LEVELS[(opts.level ?? process.env.ORRERY_LOG_LEVEL ?? 'info') as Level] ?? LEVELS.info;
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    const extra = fields ? Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Error ? v.message : v])) : {};
    write(`${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, ...extra })}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }, { level: opts.level, write }),
  };
}

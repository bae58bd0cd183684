/**
 * The one-argument log callbacks components hand to their parts (`o.log(message)`; tests pass
 * their own to collect lines), with an optional level for warnings and errors.
 */
import type { Logger } from './create-logger.ts';

export type MessageLevel = 'debug' | 'info' | 'warn' | 'error';
export type MessageLog = (message: string, level?: MessageLevel) => void;

/** A MessageLog writing to `logger` (info unless the caller says otherwise). */
export function messageLog(logger: Logger): MessageLog {
  return (message, level = 'info') => logger[level](message);
}

export { createLogger, type Logger, type LogFields, type LogDestination, type LoggerOptions } from './create-logger.ts';
export { messageLog, type MessageLog, type MessageLevel } from './message-log.ts';
export { resolveLogLevel, resolveLogFormat, LOG_LEVELS, LOG_FORMATS, DEFAULT_LOG_LEVEL, type LogLevel, type LogFormat, type Setting } from './log-settings.ts';
export { registerSecret, registerUrlSecret, redactText, redactFields, forgetRegisteredSecrets, FIELD_REDACT_PATHS, REDACTED, MIN_SECRET_LENGTH } from './redaction.ts';
export { prettyLine } from './pretty-line.ts';

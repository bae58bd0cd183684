export { logLineProblems, logRecords, type LogOutput } from './log-line-check.ts';
export { startLoggingProcess, type LoggingProcess } from './logging-process.ts';

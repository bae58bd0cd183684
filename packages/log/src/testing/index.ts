export { logLineProblems, logRecords, type LogOutput } from './log-line-check.ts';
export { startLoggingProcess, type LoggingProcess } from './logging-process.ts';
export { findCanaries, describeFindings, canaryForms, MIN_CANARY_LENGTH, type Canary, type CanarySource, type CanaryFinding, type CanaryForm } from './canary-scan.ts';

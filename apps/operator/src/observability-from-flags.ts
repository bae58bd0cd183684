/**
 * The operator's logger and tracer from `--log-level`/`--otlp-endpoint` and the environment,
 * the same on both backends. A bad setting is a usage error: the process says what was wrong,
 * prints its usage and exits 2 before it touches anything.
 */
import { createLogger, type Logger, resolveLogFormat, resolveLogLevel } from '@orrery/log';
import { endpointForLog, resolveTraceSettings, startTracing, type Tracing } from '@orrery/tracing';

export interface OperatorObservability {
  logger: Logger;
  /** Registered globally when on: the work queues' reconcile spans find it (queue/reconcile-span.ts). */
  tracing: Tracing | undefined;
}

function usageError(message: string, usage: string): never {
  process.stderr.write(`orrery-operator: ${message}\n${usage}\n`);
  process.exit(2);
}

export async function observabilityFromFlags(flags: { 'log-level'?: string; 'otlp-endpoint'?: string }, usage: string, bindings: Record<string, string> = {}): Promise<OperatorObservability> {
  const level = resolveLogLevel(flags['log-level'], process.env);
  if (!level.ok) usageError(level.message, usage);
  const format = resolveLogFormat(process.env, process.stderr.isTTY === true);
  if (!format.ok) usageError(format.message, usage);
  const base = createLogger({ component: 'operator', level: level.value, format: format.value });
  const logger = Object.keys(bindings).length > 0 ? base.child(bindings) : base;
  const traceSettings = resolveTraceSettings(flags['otlp-endpoint'], process.env, 'orrery-operator');
  if (!traceSettings.ok) usageError(traceSettings.message, usage);
  const tracing = traceSettings.value.enabled ? await startTracing(traceSettings.value) : undefined;
  if (tracing) logger.info('tracing on', { endpoint: endpointForLog(tracing.endpoint), service: tracing.serviceName });
  return { logger, tracing };
}

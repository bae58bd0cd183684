/**
 * The operator's logger and tracer from `--log-level`/`--otlp-endpoint` and the environment,
 * the same on both backends. A bad setting is a usage error: the process says what was wrong,
 * prints its usage and exits 2 before it touches anything.
 */
import { createLogger, type Logger, type LogFormat, type LogLevel, resolveLogFormat, resolveLogLevel } from '@orrery/log';
import { endpointForLog, resolveTraceSettings, startTracing, type TraceSettings, type Tracing } from '@orrery/tracing';

export interface OperatorObservability {
  logger: Logger;
  /** Registered globally when on: the work queues' reconcile spans find it (queue/reconcile-span.ts). */
  tracing: Tracing | undefined;
}

export type ObservabilitySettings = { level: LogLevel; format: LogFormat; trace: TraceSettings };

/** The settings, or the first thing wrong with them in words for the usage error. Pure. */
export function resolveObservability(
  flags: { 'log-level'?: string; 'otlp-endpoint'?: string },
  env: Record<string, string | undefined>,
  stderrIsTTY: boolean,
): { ok: true; value: ObservabilitySettings } | { ok: false; message: string } {
  const level = resolveLogLevel(flags['log-level'], env);
  if (!level.ok) return level;
  const format = resolveLogFormat(env, stderrIsTTY);
  if (!format.ok) return format;
  const trace = resolveTraceSettings(flags['otlp-endpoint'], env, 'orrery-operator');
  if (!trace.ok) return trace;
  return { ok: true, value: { level: level.value, format: format.value, trace: trace.value } };
}

export async function observabilityFromFlags(flags: { 'log-level'?: string; 'otlp-endpoint'?: string }, usage: string, bindings: Record<string, string> = {}): Promise<OperatorObservability> {
  const settings = resolveObservability(flags, process.env, process.stderr.isTTY === true);
  if (!settings.ok) {
    process.stderr.write(`orrery-operator: ${settings.message}\n${usage}\n`);
    process.exit(2);
  }
  const { level, format, trace } = settings.value;
  const base = createLogger({ component: 'operator', level, format });
  const logger = Object.keys(bindings).length > 0 ? base.child(bindings) : base;
  const tracing = trace.enabled ? await startTracing(trace) : undefined;
  if (tracing) logger.info('tracing on', { endpoint: endpointForLog(tracing.endpoint), service: tracing.serviceName });
  return { logger, tracing };
}

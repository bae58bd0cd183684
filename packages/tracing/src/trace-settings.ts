/**
 * Whether a component traces, where it exports and how it samples, from its `--otlp-endpoint` flag
 * and the standard OpenTelemetry environment. Pure: a bad value is an answer (`{ok: false}`), not
 * a throw, so each component reports it as the usage error it is (like @orrery/log's settings).
 *
 * Off unless an endpoint is given: the flag wins over OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as
 * is), which wins over OTEL_EXPORTER_OTLP_ENDPOINT (+ `/v1/traces`). OTEL_SDK_DISABLED=true turns
 * it off whatever else says.
 */

export type Setting<T> = { ok: true; value: T } | { ok: false; message: string };

export const TRACE_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

export interface SamplerSetting {
  /** The root decision (a span without a parent, or any span when not parent-based). */
  root: 'always_on' | 'always_off' | 'traceidratio';
  /** Follow the caller's sampled flag when there is a caller. */
  parentBased: boolean;
  /** For traceidratio: the share of traces kept, 0…1. */
  ratio: number;
}

export type TraceSettings =
  | { enabled: false }
  | {
      enabled: true;
      /** The OTLP/HTTP traces URL the exporter posts to. */
      endpoint: string;
      serviceName: string;
      sampler: SamplerSetting;
      /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between two batch exports (default 5000). */
      exportDelayMs: number;
    };

export type Env = Readonly<Record<string, string | undefined>>;

/** The OpenTelemetry default: parentbased_always_on. */
export const DEFAULT_SAMPLER: SamplerSetting = { root: 'always_on', parentBased: true, ratio: 1 };

const TRACES_PATH = 'v1/traces';
export const DEFAULT_EXPORT_DELAY_MS = 5_000;

/** `--otlp-endpoint` is a collector's base URL like OTEL_EXPORTER_OTLP_ENDPOINT; a URL already ending in /v1/traces is kept. */
function withTracesPath(base: string): string {
  const u = new URL(base);
  if (u.pathname.replace(/\/+$/, '').endsWith(`/${TRACES_PATH}`)) return u.toString();
  u.pathname = `${u.pathname.replace(/\/*$/, '/')}${TRACES_PATH}`;
  return u.toString();
}

function httpUrl(raw: string, source: string): Setting<string> {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { ok: false, message: `${source} must be an http:// or https:// URL of an OTLP/HTTP collector (e.g. http://127.0.0.1:4318), got ${JSON.stringify(raw)}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, message: `${source} must be an http:// or https:// URL (OTLP over HTTP; gRPC is not supported), got the scheme ${JSON.stringify(u.protocol)}` };
  return { ok: true, value: u.toString() };
}

/** Where spans go, or undefined for none. */
export function resolveTraceEndpoint(flag: string | undefined, env: Env): Setting<string | undefined> {
  if (flag !== undefined && flag !== '') {
    const url = httpUrl(flag, '--otlp-endpoint');
    return url.ok ? { ok: true, value: withTracesPath(url.value) } : url;
  }
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  if (traces !== undefined) return httpUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (base !== undefined) {
    const url = httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    return url.ok ? { ok: true, value: withTracesPath(url.value) } : url;
  }
  return { ok: true, value: undefined };
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (the ratio of the traceidratio samplers, default 1). */
export function resolveSampler(env: Env): Setting<SamplerSetting> {
  const raw = env.OTEL_TRACES_SAMPLER || undefined;
  const name = (raw ?? 'parentbased_always_on').trim().toLowerCase();
  if (!(TRACE_SAMPLERS as readonly string[]).includes(name)) {
    return { ok: false, message: `OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')}, got ${JSON.stringify(raw)}` };
  }
  const parentBased = name.startsWith('parentbased_');
  const root = (parentBased ? name.slice('parentbased_'.length) : name) as SamplerSetting['root'];
  let ratio = 1;
  const arg = env.OTEL_TRACES_SAMPLER_ARG || undefined;
  if (root === 'traceidratio' && arg !== undefined) {
    ratio = Number(arg.trim());
    if (arg.trim() === '' || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
      return { ok: false, message: `OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (the share of traces kept), got ${JSON.stringify(arg)}` };
    }
  }
  return { ok: true, value: { root, parentBased, ratio } };
}

/**
 * Everything together. `component` names the service when OTEL_SERVICE_NAME does not (e.g.
 * `orrery-router`).
 */
export function resolveTraceSettings(flag: string | undefined, env: Env, component: string): Setting<TraceSettings> {
  const disabledRaw = env.OTEL_SDK_DISABLED || undefined;
  const disabled = disabledRaw?.trim().toLowerCase();
  if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
    return { ok: false, message: `OTEL_SDK_DISABLED must be "true" or "false", got ${JSON.stringify(disabledRaw)}` };
  }
  const endpoint = resolveTraceEndpoint(flag, env);
  if (!endpoint.ok) return endpoint;
  const sampler = resolveSampler(env);
  if (!sampler.ok) return sampler;
  const delayRaw = env.OTEL_BSP_SCHEDULE_DELAY || undefined;
  const exportDelayMs = delayRaw === undefined ? DEFAULT_EXPORT_DELAY_MS : Number(delayRaw.trim());
  if (!Number.isInteger(exportDelayMs) || exportDelayMs < 1 || exportDelayMs > 3_600_000) {
    return { ok: false, message: `OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds from 1 to 3600000, got ${JSON.stringify(delayRaw)}` };
  }
  if (disabled === 'true' || endpoint.value === undefined) return { ok: true, value: { enabled: false } };
  const serviceName = (env.OTEL_SERVICE_NAME || '').trim() || component;
  return { ok: true, value: { enabled: true, endpoint: endpoint.value, serviceName, sampler: sampler.value, exportDelayMs } };
}

/** The endpoint as it may be logged: no user name or password. */
export function endpointForLog(endpoint: string): string {
  const u = new URL(endpoint);
  u.username = '';
  u.password = '';
  u.search = '';
  return u.toString();
}

/** The OTEL_* variables a platform hands on to the components and workers it starts: where to export and how to sample, never headers (they may hold credentials). */
export const TRACE_ENV_PASSTHROUGH: readonly string[] = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_SDK_DISABLED',
  'OTEL_BSP_SCHEDULE_DELAY',
];

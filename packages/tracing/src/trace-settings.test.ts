import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPORT_DELAY_MS, endpointForLog, resolveSampler, resolveTraceEndpoint, resolveTraceSettings } from './trace-settings.ts';

describe('resolveTraceEndpoint', () => {
  it('is off when nothing is given', () => {
    expect(resolveTraceEndpoint(undefined, {})).toEqual({ ok: true, value: undefined });
    expect(resolveTraceEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toEqual({ ok: true, value: undefined });
  });

  it('the flag wins over both variables and gets /v1/traces like the base endpoint', () => {
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318' };
    expect(resolveTraceEndpoint('http://flag:4318', env)).toEqual({ ok: true, value: 'http://flag:4318/v1/traces' });
    expect(resolveTraceEndpoint('http://flag:4318/v1/traces', env)).toEqual({ ok: true, value: 'http://flag:4318/v1/traces' });
  });

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is and wins over OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(resolveTraceEndpoint(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318' })).toEqual({ ok: true, value: 'http://traces:4318/custom' });
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended, keeping its own path', () => {
    expect(resolveTraceEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318' })).toEqual({ ok: true, value: 'http://base:4318/v1/traces' });
    expect(resolveTraceEndpoint(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/otlp/' })).toEqual({ ok: true, value: 'https://collector.example/otlp/v1/traces' });
  });

  it.each([
    ['--otlp-endpoint', 'not a url', undefined],
    ['--otlp-endpoint', 'grpc://collector:4317', undefined],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }],
  ])('names %s when its value is not an http(s) URL', (source, flag, env) => {
    const r = resolveTraceEndpoint(flag, env ?? {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(source);
  });
});

describe('resolveSampler', () => {
  it('defaults to parentbased_always_on', () => {
    expect(resolveSampler({})).toEqual({ ok: true, value: { root: 'always_on', parentBased: true, ratio: 1 } });
  });

  it.each([
    ['always_on', { root: 'always_on', parentBased: false, ratio: 1 }],
    ['always_off', { root: 'always_off', parentBased: false, ratio: 1 }],
    ['traceidratio', { root: 'traceidratio', parentBased: false, ratio: 0.25 }],
    ['parentbased_always_off', { root: 'always_off', parentBased: true, ratio: 1 }],
    ['ParentBased_TraceIdRatio', { root: 'traceidratio', parentBased: true, ratio: 0.25 }],
  ])('reads %s', (name, value) => {
    expect(resolveSampler({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({ ok: true, value });
  });

  it('a ratio sampler without an argument keeps every trace', () => {
    expect(resolveSampler({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toEqual({ ok: true, value: { root: 'traceidratio', parentBased: false, ratio: 1 } });
  });

  it.each(['-0.1', '1.5', 'half', ' '])('refuses the ratio %j', (arg) => {
    const r = resolveSampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: arg });
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.message).toMatch(/OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
  });

  it('refuses a sampler it does not have, naming the ones it has', () => {
    const r = resolveSampler({ OTEL_TRACES_SAMPLER: 'jaeger_remote' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/OTEL_TRACES_SAMPLER must be one of always_on, .*parentbased_traceidratio, got "jaeger_remote"/);
  });
});

describe('resolveTraceSettings', () => {
  it('is off by default', () => {
    expect(resolveTraceSettings(undefined, {}, 'orrery-router')).toEqual({ ok: true, value: { enabled: false } });
  });

  it('is on with an endpoint; the service is named after the component unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(resolveTraceSettings('http://c:4318', {}, 'orrery-router')).toEqual({
      ok: true,
      value: { enabled: true, endpoint: 'http://c:4318/v1/traces', serviceName: 'orrery-router', sampler: { root: 'always_on', parentBased: true, ratio: 1 }, exportDelayMs: DEFAULT_EXPORT_DELAY_MS },
    });
    const named = resolveTraceSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'edge', OTEL_BSP_SCHEDULE_DELAY: '100' }, 'orrery-router');
    expect(named).toMatchObject({ ok: true, value: { serviceName: 'edge', exportDelayMs: 100 } });
  });

  it('OTEL_SDK_DISABLED=true turns it off even with an endpoint', () => {
    expect(resolveTraceSettings('http://c:4318', { OTEL_SDK_DISABLED: 'TRUE' }, 'x')).toEqual({ ok: true, value: { enabled: false } });
    expect(resolveTraceSettings('http://c:4318', { OTEL_SDK_DISABLED: 'false' }, 'x')).toMatchObject({ ok: true, value: { enabled: true } });
  });

  it.each([
    [{ OTEL_SDK_DISABLED: 'yes' }, /OTEL_SDK_DISABLED must be "true" or "false"/],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_BSP_SCHEDULE_DELAY: '5s' }, /OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/],
  ])('a bad value is a startup error even when tracing would be off: %j', (env, message) => {
    const r = resolveTraceSettings(undefined, env, 'x');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});

describe('endpointForLog', () => {
  it('drops a user name, password and query from the URL', () => {
    expect(endpointForLog('https://user:s3cret@collector.example/v1/traces?token=abc')).toBe('https://collector.example/v1/traces');
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { observabilityFromFlags, resolveObservability } from './observability-from-flags.ts';

describe('resolveObservability (both backends, one parser)', () => {
  it('defaults: info, JSON off a terminal and pretty on one, tracing off', () => {
    const off = resolveObservability({}, {}, false);
    expect(off).toMatchObject({ ok: true, value: { level: 'info', format: 'json', trace: { enabled: false } } });
    expect(resolveObservability({}, {}, true)).toMatchObject({ ok: true, value: { format: 'pretty' } });
  });

  it('the flag wins over ORRERY_LOG_LEVEL; --otlp-endpoint turns tracing on for orrery-operator', () => {
    const r = resolveObservability({ 'log-level': 'debug', 'otlp-endpoint': 'http://collector:4318' }, { ORRERY_LOG_LEVEL: 'error', ORRERY_LOG_FORMAT: 'pretty' }, false);
    expect(r).toMatchObject({ ok: true, value: { level: 'debug', format: 'pretty', trace: { enabled: true, serviceName: 'orrery-operator' } } });
  });

  it.each([
    [{ 'log-level': 'loud' }, {}, /^--log-level must be one of trace, debug, info, .*got "loud"$/],
    [{}, { ORRERY_LOG_LEVEL: 'loud' }, /ORRERY_LOG_LEVEL/],
    [{}, { ORRERY_LOG_FORMAT: 'xml' }, /ORRERY_LOG_FORMAT/],
    [{ 'otlp-endpoint': 'not a url' }, {}, /not a url/],
  ])('refuses %o %o with a sentence that names the setting', (flags, env, message) => {
    const r = resolveObservability(flags, env, false);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});

describe('observabilityFromFlags', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a bad setting prints the reason and the usage, and exits 2 before anything starts', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    await expect(observabilityFromFlags({ 'log-level': 'loud' }, 'usage: orrery-operator [flags]')).rejects.toThrow('exit 2');
    expect(written.join('')).toMatch(/^orrery-operator: --log-level must be one of .*got "loud"\nusage: orrery-operator \[flags\]\n$/);
  });

  it('good settings start no tracer when tracing is off (pino writes the records: @orrery/log tests them)', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', '');
    vi.stubEnv('ORRERY_LOG_FORMAT', 'json');
    const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    const { logger, tracing } = await observabilityFromFlags({ 'log-level': 'warn' }, 'usage', { backend: 'kubernetes' });
    vi.unstubAllEnvs();
    expect(exit).not.toHaveBeenCalled();
    expect(tracing).toBeUndefined();
    expect(typeof logger.child({ x: '1' }).info).toBe('function');
  });
});

import { describe, expect, it } from 'vitest';
import { resolveLogFormat, resolveLogLevel } from './log-settings.ts';

describe('resolveLogLevel', () => {
  it('flag, then ORRERY_LOG_LEVEL, then info', () => {
    expect(resolveLogLevel('debug', { ORRERY_LOG_LEVEL: 'error' })).toEqual({ ok: true, value: 'debug' });
    expect(resolveLogLevel(undefined, { ORRERY_LOG_LEVEL: 'WARN' })).toEqual({ ok: true, value: 'warn' });
    expect(resolveLogLevel(undefined, { ORRERY_LOG_LEVEL: '' })).toEqual({ ok: true, value: 'info' });
    expect(resolveLogLevel(undefined, {})).toEqual({ ok: true, value: 'info' });
  });

  it('names the source and the allowed values for a bad level', () => {
    expect(resolveLogLevel('loud', {})).toEqual({ ok: false, message: '--log-level must be one of trace, debug, info, warn, error, fatal, silent, got "loud"' });
    const env = resolveLogLevel(undefined, { ORRERY_LOG_LEVEL: 'verbose' });
    expect(env.ok).toBe(false);
    expect(!env.ok && env.message).toMatch(/^ORRERY_LOG_LEVEL must be one of/);
  });
});

describe('resolveLogFormat', () => {
  it('ORRERY_LOG_FORMAT wins; unset → pretty on a terminal, JSON otherwise', () => {
    expect(resolveLogFormat({ ORRERY_LOG_FORMAT: 'pretty' }, false)).toEqual({ ok: true, value: 'pretty' });
    expect(resolveLogFormat({ ORRERY_LOG_FORMAT: 'json' }, true)).toEqual({ ok: true, value: 'json' });
    expect(resolveLogFormat({}, true)).toEqual({ ok: true, value: 'pretty' });
    expect(resolveLogFormat({}, false)).toEqual({ ok: true, value: 'json' });
    expect(resolveLogFormat({ ORRERY_LOG_FORMAT: 'xml' }, false)).toEqual({ ok: false, message: 'ORRERY_LOG_FORMAT must be json or pretty, got "xml"' });
  });
});

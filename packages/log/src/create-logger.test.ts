import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type LoggerOptions } from './create-logger.ts';
import { messageLog } from './message-log.ts';
import { forgetRegisteredSecrets, registerSecret } from './redaction.ts';

afterEach(() => forgetRegisteredSecrets());

function collect(o: Partial<LoggerOptions> = {}) {
  const lines: string[] = [];
  const log = createLogger({ component: 'test', format: 'json', destination: { write: (l: string) => lines.push(l) }, ...o });
  return { log, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('writes one JSON line per record: level label, ISO time, component, fields, msg', () => {
    const { log, lines, records } = collect();
    log.info('routes loaded', { functions: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const [r] = records();
    expect(r).toMatchObject({ level: 'info', component: 'test', functions: 3, msg: 'routes loaded' });
    expect(new Date(r!.time as string).toISOString()).toBe(r!.time);
  });

  it('child loggers carry their bindings (a request id) on every record', () => {
    const { log, records } = collect();
    const req = log.child({ reqId: 'req-7' });
    req.warn('answered 503');
    req.child({ route: 'register' }).error('etcd down');
    expect(records()).toEqual([
      expect.objectContaining({ level: 'warn', reqId: 'req-7', msg: 'answered 503' }),
      expect.objectContaining({ level: 'error', reqId: 'req-7', route: 'register', msg: 'etcd down' }),
    ]);
  });

  it('drops records below the level', () => {
    const { log, records } = collect({ level: 'warn' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(records().map((r) => r.level)).toEqual(['warn', 'error']);
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('error')).toBe(true);
  });

  it('logs debug records at debug', () => {
    const { log, records } = collect({ level: 'debug' });
    log.debug('d');
    expect(records()).toEqual([expect.objectContaining({ level: 'debug', msg: 'd' })]);
  });

  it('redacts a token in an authorization header field, whole', () => {
    const { log, lines } = collect();
    log.info('request', { headers: { authorization: 'Bearer tok-abcdef', accept: '*/*' } });
    log.info('request', { req: { headers: { authorization: 'Basic dXNlcjpwYXNz' } } });
    log.info('login', { password: 'hunter2', user: 'ada', token: 'ttt-111' });
    expect(lines.join('')).not.toMatch(/tok-abcdef|dXNlcjpwYXNz|hunter2|ttt-111/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ headers: { authorization: '[redacted]', accept: '*/*' } });
    expect(JSON.parse(lines[2]!)).toMatchObject({ password: '[redacted]', user: 'ada', token: '[redacted]' });
  });

  it('redacts passwords in postgres:// and redis:// URLs and bearer strings in messages and fields', () => {
    const { log, lines } = collect();
    log.error('cannot connect to postgres://orrery:pg-pass-1@db:5432/state');
    log.warn('redis: connect failed', { url: 'redis://:redis-pass-2@cache:6379' });
    log.info('forwarded Authorization: Bearer bearer-tok-3 upstream');
    const all = lines.join('');
    expect(all).not.toMatch(/pg-pass-1|redis-pass-2|bearer-tok-3/);
    expect(all).toContain('postgres://orrery:***@db:5432/state');
    expect(all).toContain('redis://:***@cache:6379');
  });

  it('masks a secret registered at start wherever it appears later: message, field, Error, binding', () => {
    const { log, lines } = collect();
    registerSecret('env-canary-XYZ987');
    log.info('loaded token env-canary-XYZ987 from ORRERY_TOKEN');
    log.warn('refused', { detail: 'expected env-canary-XYZ987', err: new Error('bad env-canary-XYZ987') });
    log.child({ note: 'env-canary-XYZ987' }).info('child');
    expect(lines).toHaveLength(3);
    expect(lines.join('')).not.toContain('env-canary-XYZ987');
    expect(JSON.parse(lines[0]!).msg).toBe('loaded token *** from ORRERY_TOKEN');
  });

  it('pretty format: one readable line per record, still redacted', () => {
    const { log, lines } = collect({ format: 'pretty' });
    log.child({ reqId: 'r1' }).warn('slow postgres://u:pw-4@db', { ms: 12 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}test \[r1\] slow postgres:\/\/u:\*\*\*@db \{"ms":12\}\n$/);
  });

  it('a JSON message cannot forge a second line', () => {
    const { log, lines } = collect();
    log.info('one\n{"level":"info","msg":"forged"}');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('messageLog', () => {
  it('writes info unless a level is given', () => {
    const { log, records } = collect();
    const say = messageLog(log);
    say('routes loaded');
    say('registry watch failed', 'warn');
    expect(records().map((r) => [r.level, r.msg])).toEqual([
      ['info', 'routes loaded'],
      ['warn', 'registry watch failed'],
    ]);
  });
});

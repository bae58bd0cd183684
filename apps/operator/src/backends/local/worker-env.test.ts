import { describe, expect, it } from 'vitest';
import { isPassedThrough, parsePassthrough, WORKER_ENV_ALLOW, workerEnvironment } from './worker-env.ts';

const operatorEnv = {
  PATH: '/usr/bin',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TZ: 'UTC',
  HOME: '/root',
  DATABASE_URL: 'postgres://u:pw@db/x',
  ORRERY_TRUSTED_PROXIES: 'loopback',
  ORRERY_PORT: '7070',
  AWS_SECRET_ACCESS_KEY: 'aws',
  NODE_OPTIONS: '--require /tmp/evil.js',
  ORRERY_LOG_LEVEL: 'debug',
  SSH_AUTH_SOCK: '/tmp/ssh',
  HTTP_PROXY: 'http://user:pw@proxy:3128',
};

describe('workerEnvironment', () => {
  it('passes only the allow-list, HOME = the work dir, then the worker’s own variables', () => {
    const env = workerEnvironment(operatorEnv, { ORRERY_SOURCE_INLINE: 'code', API_KEY: 'k' }, { home: '/data/workers/default/w-1' });
    expect(env).toEqual({
      PATH: '/usr/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC', ORRERY_LOG_LEVEL: 'debug',
      HOME: '/data/workers/default/w-1', ORRERY_SOURCE_INLINE: 'code', API_KEY: 'k',
    });
  });

  it('never passes the operator’s secrets, its ORRERY_* flags, NODE_OPTIONS or proxies by default', () => {
    const env = workerEnvironment(operatorEnv, {}, { home: '/w' });
    for (const name of ['DATABASE_URL', 'ORRERY_TRUSTED_PROXIES', 'ORRERY_PORT', 'AWS_SECRET_ACCESS_KEY', 'NODE_OPTIONS', 'SSH_AUTH_SOCK', 'HTTP_PROXY']) expect(env[name], name).toBeUndefined();
    expect(env.HOME).toBe('/w');
  });

  it('tracing variables pass when the operator has them; collector headers (credentials) and the service name do not', () => {
    const traced = { ...operatorEnv, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer x', OTEL_SERVICE_NAME: 'orrery-operator' };
    const env = workerEnvironment(traced, {}, { home: '/w' });
    expect(env).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    expect(env.OTEL_EXPORTER_OTLP_HEADERS).toBeUndefined();
    expect(env.OTEL_SERVICE_NAME).toBeUndefined();
    // None set, none invented: tracing stays off in the worker.
    expect(Object.keys(workerEnvironment(operatorEnv, {}, { home: '/w' })).filter((n) => n.startsWith('OTEL_'))).toEqual([]);
  });

  it('--worker-env-passthrough adds names the operator chose', () => {
    expect(workerEnvironment(operatorEnv, {}, { home: '/w', passthrough: ['HTTP_PROXY'] }).HTTP_PROXY).toBe('http://user:pw@proxy:3128');
    expect(parsePassthrough(' HTTP_PROXY, NO_PROXY ,')).toEqual(['HTTP_PROXY', 'NO_PROXY']);
    expect(parsePassthrough(undefined)).toEqual([]);
    expect(() => parsePassthrough('A=B')).toThrow(/variable names/);
  });

  it('the allow-list is small and holds no credential-looking name', () => {
    expect(WORKER_ENV_ALLOW.length).toBeLessThan(12);
    for (const n of WORKER_ENV_ALLOW) expect(n).not.toMatch(/TOKEN|KEY|SECRET|PASS|URL|OPTIONS/);
    expect(isPassedThrough('LC_CTYPE')).toBe(true);
    expect(isPassedThrough('HOME')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, parseRuntimeConfig } from './config.ts';

const deploy = ['--function', 'counter', '--revision', 'counter-00001', '--source-file', '/tmp/f.mjs'];

describe('parseRuntimeConfig', () => {
  it('applies defaults for a deploy worker', () => {
    const c = parseRuntimeConfig(deploy, {});
    expect(c).toMatchObject({
      mode: 'deploy', host: '127.0.0.1', port: 8080, namespace: 'default', function: 'counter', revision: 'counter-00001',
      source: { file: '/tmp/f.mjs' }, entrypoint: 'default', containerConcurrency: 0, timeoutSeconds: 300,
      drainTimeoutSeconds: 300, registryUrls: [], leaseTtlSeconds: 30,
    });
    expect(c.adminPort).toBeUndefined();
    expect(c.stateToken).toBeUndefined();
  });

  it('reads ORRERY_* environment fallbacks, flags win', () => {
    const c = parseRuntimeConfig(['--port', '0', '--timeout-seconds', '2'], {
      ORRERY_FUNCTION: 'f', ORRERY_REVISION: 'f-00002', ORRERY_SOURCE_INLINE: 'export default 1', ORRERY_PORT: '9',
      ORRERY_TIMEOUT_SECONDS: '7', ORRERY_CONTAINER_CONCURRENCY: '4', ORRERY_REGISTRY_URL: 'http://a:1, http://b:2',
      ORRERY_STATE_URL: 'http://s', ORRERY_STATE_KEYSPACE: 'ks', ORRERY_STATE_TOKEN: 'secret',
    });
    expect(c).toMatchObject({ port: 0, timeoutSeconds: 2, drainTimeoutSeconds: 2, containerConcurrency: 4, source: { inline: 'export default 1' },
      registryUrls: ['http://a:1', 'http://b:2'], stateKeyspace: 'ks', stateToken: 'secret' });
  });

  it('takes a package folder with --source-dir and its module with --source-main', () => {
    const base = ['--function', 'f', '--revision', 'f-00001'];
    expect(parseRuntimeConfig([...base, '--source-dir', '/pkgs/k', '--source-main', 'lib/h.mjs'], {}).source).toEqual({ dir: '/pkgs/k', main: 'lib/h.mjs' });
    expect(parseRuntimeConfig([...base, '--source-dir', '/pkgs/k'], {}).source).toEqual({ dir: '/pkgs/k' });
  });

  it('takes the log level from --log-level or ORRERY_LOG_LEVEL (default info)', () => {
    expect(parseRuntimeConfig(deploy, {}).logLevel).toBe('info');
    expect(parseRuntimeConfig(deploy, { ORRERY_LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(parseRuntimeConfig([...deploy, '--log-level', 'error'], { ORRERY_LOG_LEVEL: 'debug' }).logLevel).toBe('error');
    expect(() => parseRuntimeConfig([...deploy, '--log-level', 'loud'], {})).toThrow(/--log-level must be one of trace, debug, info/);
  });

  it('explains what is missing or wrong', () => {
    expect(() => parseRuntimeConfig([], {})).toThrow(/deploy mode needs --function, --revision, a source/);
    expect(() => parseRuntimeConfig([...deploy, '--source-inline', 'x'], {})).toThrow(/only one of --source-file, --source-inline/);
    expect(() => parseRuntimeConfig([...deploy, '--source-dir', '/p'], {})).toThrow(/only one of .*--source-dir/);
    expect(() => parseRuntimeConfig([...deploy, '--source-main', 'x.mjs'], {})).toThrow(/--source-main goes with --source-dir/);
    expect(() => parseRuntimeConfig([...deploy, '--container-concurrency=-1'], {})).toThrow(/integer ≥ 0/);
    expect(() => parseRuntimeConfig([...deploy, '--timeout-seconds', '0'], {})).toThrow(/integer ≥ 1/);
    expect(() => parseRuntimeConfig([...deploy, '--port', '70000'], {})).toThrow(/port number/);
    expect(() => parseRuntimeConfig([...deploy, '--bogus', 'x'], {})).toThrow(ConfigError);
    expect(() => parseRuntimeConfig([...deploy, '--mode', 'x'], {})).toThrow(/deploy or pool/);
  });

  it('takes the registry credential from the environment or a file, one way only, never in pool mode', () => {
    expect(parseRuntimeConfig(deploy, { ORRERY_REGISTRY_CREDENTIAL: 'c' }).registryCredential).toBe('c');
    expect(parseRuntimeConfig([...deploy, '--registry-credential-file', '/s/cred'], {}).registryCredentialFile).toBe('/s/cred');
    expect(() => parseRuntimeConfig([...deploy, '--registry-credential-file', '/s/cred'], { ORRERY_REGISTRY_CREDENTIAL: 'c' })).toThrow(/one way/);
    expect(() => parseRuntimeConfig(['--mode', 'pool'], { ORRERY_REGISTRY_CREDENTIAL: 'c' })).toThrow(/at specialize/);
    // there is no flag carrying the credential itself (flags show in ps)
    expect(() => parseRuntimeConfig([...deploy, '--registry-credential', 'c'], {})).toThrow(ConfigError);
  });

  it('insists the state token come with a keyspace and a URL, from the environment', () => {
    expect(() => parseRuntimeConfig([...deploy, '--state-keyspace', 'ks', '--state-url', 'http://s'], {})).toThrow(/--state-token-file FILE, or the environment variable ORRERY_STATE_TOKEN/);
    expect(() => parseRuntimeConfig([...deploy, '--state-keyspace', 'ks'], { ORRERY_STATE_TOKEN: 't' })).toThrow(/--state-url/);
    expect(() => parseRuntimeConfig(deploy, { ORRERY_STATE_TOKEN: 't' })).toThrow(/which keyspace/);
  });

  it('fencing: off by default, --state-fencing on|off (or ORRERY_STATE_FENCING) with a keyspace only', () => {
    const withState = [...deploy, '--state-keyspace', 'ks', '--state-url', 'http://s'];
    const env = { ORRERY_STATE_TOKEN: 't' };
    expect(parseRuntimeConfig(withState, env).stateFencing).toBe(false);
    expect(parseRuntimeConfig([...withState, '--state-fencing', 'on'], env).stateFencing).toBe(true);
    expect(parseRuntimeConfig(withState, { ...env, ORRERY_STATE_FENCING: 'on' }).stateFencing).toBe(true);
    expect(parseRuntimeConfig([...withState, '--state-fencing', 'off'], env).stateFencing).toBe(false);
    expect(() => parseRuntimeConfig([...withState, '--state-fencing', 'yes'], env)).toThrow(/--state-fencing must be on or off, got "yes"/);
    expect(() => parseRuntimeConfig([...deploy, '--state-fencing', 'on'], {})).toThrow(/needs --state-keyspace/);
    expect(() => parseRuntimeConfig(['--mode', 'pool', '--state-fencing', 'on'], {})).toThrow(/at specialize/);
  });

  it('takes the state token from a file instead (--state-token-file, ORRERY_STATE_TOKEN_FILE), one way only', () => {
    const withState = [...deploy, '--state-keyspace', 'ks', '--state-url', 'http://s'];
    expect(parseRuntimeConfig([...withState, '--state-token-file', '/var/orrery/state/t'], {})).toMatchObject({ stateTokenFile: '/var/orrery/state/t', stateToken: undefined });
    expect(parseRuntimeConfig(withState, { ORRERY_STATE_TOKEN_FILE: '/f' })).toMatchObject({ stateTokenFile: '/f' });
    expect(() => parseRuntimeConfig([...withState, '--state-token-file', '/f'], { ORRERY_STATE_TOKEN: 't' })).toThrow(/not both/);
    expect(() => parseRuntimeConfig([...deploy, '--state-token-file', '/f'], {})).toThrow(/--state-token-file is given but no --state-keyspace/);
    expect(() => parseRuntimeConfig(['--mode', 'pool', '--state-token-file', '/f'], {})).toThrow(/at specialize/);
  });

  it('the specialize verifier belongs to pool mode, from a file or the environment, one way only', () => {
    const v = 'ab'.repeat(32);
    expect(parseRuntimeConfig(['--mode', 'pool', '--specialize-verifier-file', '/t'], {})).toMatchObject({ specializeVerifierFile: '/t' });
    expect(parseRuntimeConfig(['--mode', 'pool'], { ORRERY_SPECIALIZE_VERIFIER_FILE: '/e' })).toMatchObject({ specializeVerifierFile: '/e' });
    expect(parseRuntimeConfig(['--mode', 'pool'], { ORRERY_SPECIALIZE_VERIFIER: v })).toMatchObject({ specializeVerifier: v });
    expect(parseRuntimeConfig(['--mode', 'pool'], {})).toMatchObject({ specializeVerifierFile: undefined, specializeVerifier: undefined });
    expect(() => parseRuntimeConfig(['--mode', 'pool', '--specialize-verifier-file', '/t'], { ORRERY_SPECIALIZE_VERIFIER: v })).toThrow(/one way/);
    expect(() => parseRuntimeConfig([...deploy, '--specialize-verifier-file', '/t'], {})).toThrow(/pool mode/);
    expect(() => parseRuntimeConfig(deploy, { ORRERY_SPECIALIZE_VERIFIER: v })).toThrow(/pool mode/);
  });

  it('the shared pool token flag is refused with what replaced it', () => {
    expect(() => parseRuntimeConfig(['--mode', 'pool', '--specialize-token-file', '/t'], {})).toThrow(/--specialize-verifier-file/);
  });

  it('pool mode starts without a function', () => {
    expect(parseRuntimeConfig(['--mode', 'pool'], {})).toMatchObject({ mode: 'pool', source: undefined });
    expect(() => parseRuntimeConfig(['--mode', 'pool', ...deploy], {})).toThrow(/specialize/);
  });

  it('tracing: off by default, on with --otlp-endpoint or the OTEL_* environment, a bad value refused at start', () => {
    expect(parseRuntimeConfig(['--mode', 'pool'], {}).tracing).toEqual({ enabled: false });
    expect(parseRuntimeConfig(['--mode', 'pool', '--otlp-endpoint', 'http://c:4318'], {}).tracing).toMatchObject({ enabled: true, endpoint: 'http://c:4318/v1/traces', serviceName: 'orrery-runtime' });
    expect(parseRuntimeConfig(['--mode', 'pool'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'workers' }).tracing).toMatchObject({ enabled: true, serviceName: 'workers' });
    expect(() => parseRuntimeConfig(['--mode', 'pool'], { OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER must be one of/);
    expect(() => parseRuntimeConfig(['--mode', 'pool', '--otlp-endpoint', 'c:4318'], {})).toThrow(ConfigError);
  });

  it('--exit-with-parent: a pid (flag or ORRERY_EXIT_WITH_PARENT), absent by default, anything else refused', () => {
    expect(parseRuntimeConfig(['--mode', 'pool'], {}).exitWithParent).toBeUndefined();
    expect(parseRuntimeConfig(['--mode', 'pool', '--exit-with-parent', '4242'], {}).exitWithParent).toBe(4242);
    expect(parseRuntimeConfig(['--mode', 'pool'], { ORRERY_EXIT_WITH_PARENT: '77' }).exitWithParent).toBe(77);
    for (const bad of ['0', '-3', 'operator', '1.5']) expect(() => parseRuntimeConfig(['--mode', 'pool', `--exit-with-parent=${bad}`], {})).toThrow(/--exit-with-parent must be an integer/);
  });
});

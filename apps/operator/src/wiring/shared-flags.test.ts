import { describe, expect, it } from 'vitest';
import { UsageError } from './command-line.ts';
import { readSharedFlags, type SharedFlagValues } from './shared-flags.ts';

const DEFAULTS: SharedFlagValues = { host: '127.0.0.1', port: '0', 'pool-idle-timeout': '120s', 'rollup-interval': '10s', 'require-registry-write-tokens': false };

describe('readSharedFlags (the flags both backends take)', () => {
  it('reads lists, durations and the registry credentials', () => {
    const s = readSharedFlags({ ...DEFAULTS, port: '7070', 'registry-url': 'http://a:1,https://b', 'router-admin-urls': 'http://r1,http://r2', 'pool-idle-timeout': '2m', 'registry-master-key-file': 'k', 'previous-registry-master-key-file': 'old' }, {});
    expect(s).toMatchObject({ port: 7070, registryUrls: ['http://a:1', 'https://b'], routerAdminUrls: ['http://r1', 'http://r2'], poolIdleTimeoutMs: 120_000, rollupIntervalMs: 10_000 });
    expect(s.registryAuth).toEqual({ masterKeyFile: 'k', previousMasterKeyFile: 'old', writeTokensFile: undefined, requireWriteTokens: false });
  });

  it('reads the queue triggers\' broker (--queue-url, --queue-credentials-file); none without it', () => {
    expect(readSharedFlags(DEFAULTS, {}).queue).toBeUndefined();
    expect(readSharedFlags({ ...DEFAULTS, 'queue-url': 'nats://broker:4222', 'queue-credentials-file': '/etc/q' }, {}).queue).toEqual({ servers: ['nats://broker:4222'], credentialsFile: '/etc/q' });
  });

  it('a previous registry key needs the new one: the file, or the backend\'s other source of it', () => {
    const values = { ...DEFAULTS, 'previous-registry-master-key-file': 'old' };
    expect(() => readSharedFlags(values, {})).toThrow(new UsageError('--previous-registry-master-key-file needs --registry-master-key-file (the new key)'));
    expect(readSharedFlags(values, {}, true).registryAuth.previousMasterKeyFile).toBe('old');
  });

  it.each([
    [{ 'registry-url': 'http://ok,not a url' }, '--registry-url "not a url" is not an http(s) URL'],
    [{ 'pool-idle-timeout': '500ms' }, '--pool-idle-timeout must be a duration of at least 1s, like "120s"'],
    [{ 'rollup-interval': 'often' }, '--rollup-interval must be a duration of at least 1s, like "10s"'],
    [{ 'autoscaler-panic-threshold-percentage': '100' }, '--autoscaler-panic-threshold-percentage must be a number ≥ 110'],
    [{ 'revision-gc-min-age': 'old' }, '--revision-gc-min-age must be a duration'],
    [{ 'queue-url': 'nats://u:p@broker:4222' }, '--queue-url carries credentials'],
  ])('%j is a usage error naming the flag', (bad, message) => {
    expect(() => readSharedFlags({ ...DEFAULTS, ...bad }, {})).toThrow(UsageError);
    expect(() => readSharedFlags({ ...DEFAULTS, ...bad }, {})).toThrow(message);
  });
});

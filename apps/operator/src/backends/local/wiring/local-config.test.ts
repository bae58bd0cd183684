import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../wiring/command-line.ts';
import { type LocalConfig, parseLocalConfig } from './local-config.ts';

const parse = (...args: string[]) => parseLocalConfig(args, {}) as LocalConfig;

describe('parseLocalConfig', () => {
  it('has the documented defaults, and paths made absolute', () => {
    const c = parse();
    expect(c).toMatchObject({ host: '127.0.0.1', port: 0, dataDir: resolve('.orrery'), resyncMs: 30_000, poolSize: 3, poolIdleTimeoutMs: 120_000, rollupIntervalMs: 10_000, stateSyncRouters: 0, registryUrls: [], isolation: { mode: 'auto' } });
    expect(c.platformCluster).toBeUndefined();
    expect(parse('--data-dir', 'd', '--store-token-file', 't', '--endpoints-file', 'e.yaml')).toMatchObject({ dataDir: resolve('d'), storeTokenFile: resolve('t'), endpointsFile: resolve('e.yaml') });
  });

  it('reads the package limits (docs/packages.md), with their defaults', () => {
    expect(parse().packages).toEqual({ maxArchiveBytes: 64 * 1024 * 1024, buildTimeoutMs: 600_000 });
    expect(parse('--max-package-bytes', '2048', '--build-timeout-seconds', '5').packages).toEqual({ maxArchiveBytes: 2048, buildTimeoutMs: 5000 });
    expect(() => parse('--max-package-bytes', '10')).toThrow(/--max-package-bytes must be/);
    expect(() => parse('--build-timeout-seconds', '0')).toThrow(/--build-timeout-seconds must be/);
  });

  it('limits workers starting at once to the CPU count unless told (0 = no limit)', () => {
    expect(parse().workerStartConcurrency).toBe(availableParallelism());
    expect(parse('--worker-start-concurrency', '0').workerStartConcurrency).toBe(0);
    expect(parse('--worker-start-concurrency', '4').workerStartConcurrency).toBe(4);
    // `orrery up` passes its environment on: the variable sets it there, the flag still wins.
    expect((parseLocalConfig([], { ORRERY_WORKER_START_CONCURRENCY: '0' }) as LocalConfig).workerStartConcurrency).toBe(0);
    expect((parseLocalConfig(['--worker-start-concurrency', '3'], { ORRERY_WORKER_START_CONCURRENCY: '0' }) as LocalConfig).workerStartConcurrency).toBe(3);
    expect(() => parseLocalConfig([], { ORRERY_WORKER_START_CONCURRENCY: 'x' })).toThrow(/--worker-start-concurrency must be/);
  });

  it('--help is asked for before anything is validated', () => {
    expect(parseLocalConfig(['--help', '--pool-size', 'x'], {})).toBe('help');
  });

  it('reads the platform RegistryCluster with or without its registry API port', () => {
    expect(parse('--registry-cluster', 'orrery-system/platform:8084').platformCluster).toEqual({ key: 'orrery-system/platform', apiPort: 8084 });
    expect(parse('--registry-cluster', 'ns/name').platformCluster).toEqual({ key: 'ns/name', apiPort: undefined });
  });

  it('takes $DATABASE_URL when --database-url is not given', () => {
    expect((parseLocalConfig([], { DATABASE_URL: 'postgres://db/x' }) as LocalConfig).databaseUrl).toBe('postgres://db/x');
    expect((parseLocalConfig(['--database-url', 'postgres://flag/y'], { DATABASE_URL: 'postgres://db/x' }) as LocalConfig).databaseUrl).toBe('postgres://flag/y');
  });

  it.each([
    [['--bogus'], /--bogus/],
    [['--registry-cluster', 'no-slash'], '--registry-cluster takes NAMESPACE/NAME or NAMESPACE/NAME:PORT'],
    [['--pool-size=-1'], '--pool-size must be an integer ≥ 0'],
    [['--worker-start-concurrency=-1'], '--worker-start-concurrency must be an integer ≥ 0'],
    [['--worker-start-concurrency', 'two'], '--worker-start-concurrency must be an integer ≥ 0'],
    [['--pool-idle-timeout', 'soon'], '--pool-idle-timeout must be a duration of at least 1s'],
    [['--rollup-interval', '500ms'], '--rollup-interval must be a duration of at least 1s'],
    [['--isolate-workers', 'maybe'], '--isolate-workers must be auto, on or off'],
    [['--worker-uid-range', '5-6'], '--worker-uid-range takes FIRST-LAST'],
    [['--worker-env-passthrough', 'A-B'], '--worker-env-passthrough takes variable names'],
    [['--previous-registry-master-key-file', 'old.key'], '--previous-registry-master-key-file needs --registry-master-key-file'],
    [['--registry-url', 'ftp://x'], '--registry-url "ftp://x" is not an http(s) URL'],
    [['--autoscaler-tick', '1ms'], '--autoscaler-tick must be a duration'],
    [['--revision-gc-keep', 'many'], '--revision-gc-keep must be a whole number'],
  ])('%j is a usage error naming the flag', (args, message) => {
    expect(() => parseLocalConfig(args, {})).toThrow(UsageError);
    expect(() => parseLocalConfig(args, {})).toThrow(message);
  });
});

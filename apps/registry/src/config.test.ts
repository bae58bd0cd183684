import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const toml = `
[node]
region = "cn-sh"
cluster_id = 100
[server]
http_addr = "0.0.0.0:8080"
admin_addr = "127.0.0.1:18080"
[auth]
admin_token = "file-admin"
replication_token = "r"
prometheus_sd_token = "p"
[etcd]
endpoints = ["127.0.0.1:2379", "http://127.0.0.1:22379"]
[runtime]
request_timeout = "2s"
shutdown_timeout = "10s"
[registry]
cleanup_interval = "1s"
cleanup_delete_limit = 64
`;

describe('config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-config-'));
  const file = join(dir, 'registry.toml');
  writeFileSync(file, toml);

  it('reads TOML and lets flags override it', () => {
    const r = loadConfig(['--config', file, '--http-addr', ':28080', '--admin-token', 'new-token'], {});
    expect(r.ok).toBe(true);
    if (r.ok !== true) return;
    expect(r.config.httpAddr).toEqual({ host: '0.0.0.0', port: 28080 });
    expect(r.config.adminAddr).toEqual({ host: '127.0.0.1', port: 18080 });
    expect(r.config.adminToken).toBe('new-token');
    expect(r.config.etcdEndpoints).toEqual(['http://127.0.0.1:2379', 'http://127.0.0.1:22379']);
    expect(r.config.requestTimeoutMs).toBe(2000);
    expect(r.config.cleanupIntervalMs).toBe(1000);
    expect(r.config.cleanupDeleteLimit).toBe(64);
    expect(r.config.shutdownTimeoutMs).toBe(10_000);
  });

  it('names every missing required field at once', () => {
    const r = loadConfig([], {});
    expect(r.ok).toBe(false);
    if (r.ok !== false) return;
    const line = r.message.split('\n')[0]!;
    expect(line).toMatch(/^missing required settings \(give them in the TOML file or as flags\): /);
    for (const f of REQUIRED) expect(line).toContain(`${f.field} (${f.flag})`);
  });

  // The seed: flags, then the TOML file; every remaining field must be given, or start-up fails.
  const REQUIRED = [
    { field: 'server.http_addr', flag: '--http-addr', value: '127.0.0.1:0' },
    { field: 'server.admin_addr', flag: '--admin-addr', value: '127.0.0.1:0' },
    { field: 'auth.admin_token', flag: '--admin-token', value: 'a' },
    { field: 'auth.replication_token', flag: '--replication-token', value: 'r' },
    { field: 'auth.prometheus_sd_token', flag: '--prometheus-sd-token', value: 'p' },
    { field: 'etcd.endpoints', flag: '--etcd-endpoints', value: '127.0.0.1:2379' },
    { field: 'node.region', flag: '--region', value: 'default' },
    { field: 'node.cluster_id', flag: '--cluster-id', value: '100' },
    { field: 'runtime.request_timeout', flag: '--request-timeout', value: '5s' },
    { field: 'runtime.shutdown_timeout', flag: '--shutdown-timeout', value: '10s' },
    { field: 'registry.cleanup_interval', flag: '--registry-cleanup-interval', value: '1s' },
    { field: 'registry.cleanup_delete_limit', flag: '--registry-cleanup-delete-limit', value: '128' },
  ] as const;
  const allFlags = (...except: string[]): string[] => REQUIRED.filter((f) => !except.includes(f.field)).flatMap((f) => [f.flag, f.value]);

  it('starts from flags alone when every required field is a flag', () => {
    const r = loadConfig(allFlags(), {});
    if (r.ok !== true) throw new Error(r.ok === false ? r.message : 'help');
    expect(r.config).toMatchObject({ region: 'default', clusterId: '100', requestTimeoutMs: 5000, shutdownTimeoutMs: 10_000, cleanupIntervalMs: 1000, cleanupDeleteLimit: 128 });
    expect(r.checkOnly).toBeUndefined();
    expect(loadConfig([...allFlags(), '--check-config'], {})).toMatchObject({ ok: true, checkOnly: true });
    expect(loadConfig([...allFlags('node.region'), '--check-config'], {}).ok).toBe(false);
  });

  it('takes the log level from --log-level, then ORRERY_LOG_LEVEL (default info), and refuses an unknown one', () => {
    const level = (argv: string[], env: Record<string, string>) => {
      const r = loadConfig([...allFlags(), ...argv], env);
      return r.ok === true ? r.config.logLevel : r.ok === false ? r.message : 'help';
    };
    expect(level([], {})).toBe('info');
    expect(level([], { ORRERY_LOG_LEVEL: 'debug' })).toBe('debug');
    expect(level(['--log-level', 'warn'], { ORRERY_LOG_LEVEL: 'debug' })).toBe('warn');
    expect(level(['--log-level', 'chatty'], {})).toBe('--log-level must be one of trace, debug, info, warn, error, fatal, silent, got "chatty"');
  });

  it.each(REQUIRED.map((f) => [f.field, f.flag] as const))('without %s (flag %s) nor its TOML field start-up fails naming only it', (field, flag) => {
    const r = loadConfig(allFlags(field), {});
    expect(r.ok).toBe(false);
    if (r.ok !== false) return;
    expect(r.message).toBe(`missing required settings (give them in the TOML file or as flags): ${field} (${flag})`);
  });

  it.each(REQUIRED.map((f) => [f.field] as const))('%s in the TOML file alone is enough', (field) => {
    const [sectionName, key] = field.split('.') as [string, string];
    const f = REQUIRED.find((x) => x.field === field)!;
    const value = key === 'cluster_id' || key === 'cleanup_delete_limit' ? f.value : JSON.stringify(f.value);
    const one = join(dir, `only-${key}.toml`);
    writeFileSync(one, `[${sectionName}]\n${key} = ${value}\n`);
    const r = loadConfig(['--config', one, ...allFlags(field)], {});
    expect(r.ok === false ? r.message : r.ok).toBe(true);
  });

  it('takes the older --cleanup-interval / --cleanup-delete-limit as aliases of the seed names; the last one given wins', () => {
    const base = allFlags('registry.cleanup_interval');
    const aliasOnly = loadConfig([...allFlags('registry.cleanup_interval', 'registry.cleanup_delete_limit'), '--cleanup-interval', '2s', '--cleanup-delete-limit=7'], {});
    if (aliasOnly.ok !== true) throw new Error(aliasOnly.ok === false ? aliasOnly.message : 'help');
    expect([aliasOnly.config.cleanupIntervalMs, aliasOnly.config.cleanupDeleteLimit]).toEqual([2000, 7]);
    const seedLast = loadConfig([...base, '--cleanup-interval', '2s', '--registry-cleanup-interval', '3s'], {});
    expect(seedLast.ok === true && seedLast.config.cleanupIntervalMs).toBe(3000);
    const aliasLast = loadConfig([...base, '--registry-cleanup-interval', '3s', '--cleanup-interval=4s'], {});
    expect(aliasLast.ok === true && aliasLast.config.cleanupIntervalMs).toBe(4000);
  });

  it('refuses a cleanup delete limit that is not a positive whole number', () => {
    for (const bad of ['0', '-1', '1.5', 'many']) {
      const r = loadConfig([...allFlags('registry.cleanup_delete_limit'), `--registry-cleanup-delete-limit=${bad}`], {});
      expect(r.ok === false && r.message).toBe(`registry.cleanup_delete_limit must be a positive integer, got "${bad}"`);
    }
  });

  it('rejects bad durations and unknown flags', () => {
    expect(loadConfig(['--config', file, '--request-timeout', 'soon'], {}).ok).toBe(false);
    expect(loadConfig(['--bogus'], {}).ok).toBe(false);
  });

  it('takes --port/--admin-port as shorthand', () => {
    const r = loadConfig(['--config', file, '--port', '0', '--admin-port', '0'], {});
    expect(r.ok === true && r.config.httpAddr.port).toBe(0);
    expect(r.ok === true && r.config.adminAddr).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('write credentials and watch caps: seed-style TOML, files for every secret, flags override', () => {
    const keyFile = join(dir, 'registry-master.key');
    const oldKeyFile = join(dir, 'registry-master.old.key');
    writeFileSync(keyFile, `${'ab'.repeat(32)}\n`);
    writeFileSync(oldKeyFile, 'cd'.repeat(32));
    const tokensFile = join(dir, 'write-tokens.toml');
    writeFileSync(tokensFile, '[[write_tokens]]\nname = "trade"\ntoken = "trade-secret-0123456789"\nnamespaces = ["prod"]\nservice_prefixes = ["company.trade"]\n');
    const withAuth = join(dir, 'auth.toml');
    writeFileSync(
      withAuth,
      `${toml.replace('prometheus_sd_token = "p"', `prometheus_sd_token = "p"\nregistry_master_key_file = "${keyFile}"\nprevious_registry_master_key_file = "${oldKeyFile}"\nwrite_tokens_file = "${tokensFile}"\nrequire_write_tokens = true\n[[auth.write_tokens]]\nname = "ops"\ntoken = "ops-secret-0123456789"\nnamespaces = ["*"]\nservice_prefixes = ["*"]`).replace('cleanup_delete_limit = 64', 'cleanup_delete_limit = 64\nmax_watches = 10\nmax_watches_per_client = 3')}`,
    );
    const r = loadConfig(['--config', withAuth], {});
    if (r.ok !== true) throw new Error(r.ok === false ? r.message : 'help');
    expect(r.config.registryMasterKeys.map((k) => k.toString('hex'))).toEqual(['ab'.repeat(32), 'cd'.repeat(32)]);
    expect(r.config.writeTokens.map((t) => t.name)).toEqual(['ops', 'trade']);
    expect(r.config.requireWriteTokens).toBe(true);
    expect(r.config.watchLimits).toEqual({ maxWatches: 10, maxWatchesPerClient: 3 });
    const f = loadConfig(['--config', file, '--registry-master-key-file', keyFile, '--write-tokens-file', tokensFile, '--require-write-tokens', '--max-watches', '0', '--max-watches-per-client', '7'], {});
    if (f.ok !== true) throw new Error(f.ok === false ? f.message : 'help');
    expect(f.config.registryMasterKeys).toHaveLength(1);
    expect(f.config.writeTokens.map((t) => t.name)).toEqual(['trade']);
    expect(f.config.requireWriteTokens).toBe(true);
    expect(f.config.watchLimits).toEqual({ maxWatches: 0, maxWatchesPerClient: 7 });
  });

  it('defaults: no master key, no write tokens, open registration, watch caps 4096 / 256', () => {
    const r = loadConfig(['--config', file], {});
    if (r.ok !== true) throw new Error('config');
    expect(r.config.registryMasterKeys).toEqual([]);
    expect(r.config.writeTokens).toEqual([]);
    expect(r.config.requireWriteTokens).toBe(false);
    expect(r.config.watchLimits).toEqual({ maxWatches: 4096, maxWatchesPerClient: 256 });
  });

  it('refuses bad keys, a previous key alone, bad caps and bad write tokens, without echoing secrets', () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not-hex');
    const badKey = loadConfig(['--config', file, '--registry-master-key-file', bad], {});
    expect(badKey.ok === false && badKey.message).toContain('must contain only hex digits');
    const missing = loadConfig(['--config', file, '--registry-master-key-file', join(dir, 'none.key')], {});
    expect(missing.ok === false && missing.message).toContain('cannot read registry master key file');
    const prevOnly = loadConfig(['--config', file, '--previous-registry-master-key-file', bad], {});
    expect(prevOnly.ok === false && prevOnly.message).toContain('needs auth.registry_master_key_file');
    expect(loadConfig(['--config', file, '--max-watches', '-1'], {}).ok).toBe(false);
    const tokens = join(dir, 'bad-tokens.toml');
    writeFileSync(tokens, '[[write_tokens]]\nname = "x"\ntoken = "secret-value-0123456789"\nnamespaces = ["*"]\nservice_prefixes = ["orrery.functions"]\n');
    const t = loadConfig(['--config', file, '--write-tokens-file', tokens], {});
    expect(t.ok === false && t.message).toContain('inside orrery.functions.');
    expect(t.ok === false && t.message).not.toContain('secret-value');
  });
});

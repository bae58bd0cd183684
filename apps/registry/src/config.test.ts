import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const toml = `
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
    for (const f of ['server.http_addr', 'server.admin_addr', 'auth.admin_token', 'auth.replication_token', 'auth.prometheus_sd_token', 'etcd.endpoints']) {
      expect(r.message).toContain(f);
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
});

/**
 * The registry's whole output is structured (docs/operations.md "Logs"): the real binary at debug
 * level on a real etcd, with canary secrets where it receives them (the three tokens from the
 * environment, a write token from its file), driven through a good write, refused calls that
 * carry the canaries, a write while etcd is paused (the failure record with the request id) and a
 * stop. Every line is a JSON record of the registry; no canary shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EtcdCluster } from '@orrery/etcdcluster';
import { logLineProblems, logRecords, startLoggingProcess, type LoggingProcess } from '@orrery/log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, regBody, testMasterKeyFile } from './testing/fixture.ts';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orrery-registry.mjs');
const CANARIES = {
  admin: 'canary-admin-token-0b7d',
  replication: 'canary-replication-token-44e2',
  sd: 'canary-sd-token-c1f9',
  write: 'canary-write-token-9a30',
};

const dir = mkdtempSync(join(tmpdir(), 'orrery-registry-logs-'));
let etcd: EtcdCluster;
let registry: LoggingProcess;

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  const tokens = join(dir, 'write-tokens.toml');
  writeFileSync(tokens, `[[write_tokens]]\nname = "ops"\ntoken = "${CANARIES.write}"\nnamespaces = ["logs"]\nservice_prefixes = ["*"]\n`, { mode: 0o600 });
  registry = await startLoggingProcess(
    BIN,
    ['--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','), '--request-timeout', '1s', '--shutdown-timeout', '5s',
      '--region', 'test', '--cluster-id', 'test', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
      '--registry-master-key-file', testMasterKeyFile(), '--write-tokens-file', tokens],
    {
      ORRERY_LOG_LEVEL: 'debug',
      ORRERY_REGISTRY_ADMIN_TOKEN: CANARIES.admin,
      ORRERY_REGISTRY_REPLICATION_TOKEN: CANARIES.replication,
      ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: CANARIES.sd,
    },
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  await etcd?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('registry logs', () => {
  it('are JSON records of the registry with no secret in them, through refusals, an etcd outage and a stop', { timeout: 90_000 }, async () => {
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    expect((await call(registry.url, 'POST', '/api/v1/registry/register', regBody('logs', 'i1'), bearer(CANARIES.write))).body.code).toBe('ok');
    // Wrong credentials everywhere, each carrying a canary the registry knows for something else.
    expect((await call(registry.url, 'POST', '/api/v1/registry/register', regBody('elsewhere', 'i2'), bearer(CANARIES.admin))).status).toBeGreaterThanOrEqual(400);
    expect((await call(registry.adminUrl!, 'GET', '/admin/v1/members', undefined, bearer(CANARIES.write))).status).toBeGreaterThanOrEqual(400);
    etcd.stop('m1');
    // A write needs etcd (a read may still be answered from the index): it fails for sure.
    const failed = await call(registry.url, 'POST', '/api/v1/registry/register', regBody('logs', 'i3'), bearer(CANARIES.write));
    etcd.cont('m1');
    expect(failed.status).toBe(503);
    const reqId = failed.body.requestId;
    expect(await registry.stop()).toBe(0);

    const out = { stdout: registry.stdout(), stderr: registry.stderr() };
    expect(logLineProblems(out, 'registry')).toEqual([]);
    for (const canary of Object.values(CANARIES)) expect(out.stdout + out.stderr).not.toContain(canary);
    const records = logRecords(out.stderr);
    // The failure is logged with the id the client was given.
    expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', reqId, msg: expect.stringMatching(/answered \w+_failed: /) })]));
    expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['write tokens on: ops', 'SIGTERM, shutting down']));
  });
});

/**
 * Issue 20, item 1, through a real router: etcd, the `orrery-registry` binary (registry master
 * key, write tokens required), `orrery-router` processes watching it, and test upstreams.
 *
 * The attacker is a function author: a tenant whose own revision (`attacker-00001`) holds a
 * valid registration credential, plus anyone on the network without one. They try to:
 * - register a rogue server under the victim's service without a credential (refused);
 * - register their own revision with labels naming the victim's function and revision;
 * - register their own revision at a platform component's address (a "statesvc") or at the
 *   registry, the operator, or the router itself.
 * Requests sent through the router must reach the victim's real worker only, never the rogue
 * server nor a platform component.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential } from '@orrery/auth';
import { EtcdCluster } from '@orrery/etcdcluster';
import { logRecords } from '@orrery/log/testing';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';

const REGISTRY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'registry', 'bin', 'orrery-registry.mjs');
const g = new ProcessGroup();
const key = Buffer.alloc(32, 0x61);
const svc = (fn: string, rev: string) => `orrery.functions.team.${fn}.${rev}`;
const credentialOf = (fn: string, rev: string) => deriveRegistrationCredential(key, 'team', svc(fn, rev));

let etcd: EtcdCluster | undefined;
let registryUrl = '';
let router: { url: string; admin: string; output: () => string };
let legit = '';
let rogue = '';
let statesvc = '';
let operator = '';

async function register(body: Record<string, unknown>, credential?: string): Promise<{ status: number; code?: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential) headers.authorization = `Bearer ${credential}`;
  const res = await request(`${registryUrl}/api/v1/registry/register`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.body.json()) as { code?: string };
  return { status: res.statusCode, code: json.code };
}
const instance = (id: string, service: string, labels: Record<string, string>, address: string) => {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return { namespace: 'team', service, instanceId: id, labels, endpoints: [{ name: 'http', protocol: 'http', host, port }], leaseTtlSeconds: 60 };
};
const labelsOf = (fn: string, rev: string) => ({ 'orrery.dev/function': fn, 'orrery.dev/revision': rev, 'orrery.dev/executor': 'deploy' });
const served = async (address: string): Promise<number> => ((await (await request(`http://${address}/__stats`)).body.json()) as { served: number }).served;
/** The messages of the router's log records (JSON lines: quotes inside are escaped on the wire). */
const logged = (): string => logRecords(router.output()).map((r) => String(r.msg)).join('\n');
const stats = async (): Promise<RouterStatsJson> => (await (await request(`${router.admin}/v1/stats`)).body.json()) as RouterStatsJson;

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  const keyFile = join(g.dir, 'registry-master.key');
  writeFileSync(keyFile, key.toString('hex'), { mode: 0o600 });
  const reg = await g.start(
    [REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','), '--request-timeout', '4s',
      '--registry-master-key-file', keyFile, '--require-write-tokens', '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128'],
    /listening (http:\/\/\S+) admin/,
    'orrery-registry',
    { ORRERY_REGISTRY_ADMIN_TOKEN: 'admin-token-router-security', ORRERY_REGISTRY_REPLICATION_TOKEN: 'replication-token-router-sec', ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: 'sd-token-router-security' },
  );
  registryUrl = reg.match[1]!;
  const [a, b, c, d] = await Promise.all(['legit', 'rogue', 'statesvc', 'operator'].map((n) => g.upstream(n)));
  [legit, rogue, statesvc, operator] = [a!.address, b!.address, c!.address, d!.address];
  const routes = g.write(
    'routes.yaml',
    functionYaml({ name: 'victim', namespace: 'team', revisions: ['victim-00001'], timeoutSeconds: 2 }) +
      functionYaml({ name: 'attacker', namespace: 'team', revisions: ['attacker-00001'], timeoutSeconds: 2 }),
  );
  // statesvc and the operator are named as platform endpoints (the registry's URL is one by itself).
  router = await g.router(['--routes-file', routes, '--registry-url', registryUrl, '--platform-endpoint', statesvc, '--platform-endpoint', `http://${operator}/`]);
}, 120_000);

afterAll(async () => {
  await g.stopAll();
  await etcd?.close();
});

describe('the router uses only instances a revision may register, at addresses that are not the platform', () => {
  it('rogue registrations never receive traffic; the victim keeps getting it', { timeout: 90_000 }, async () => {
    await eventually(async () => ((await stats()).registry?.every((r) => r.connected) ? true : undefined), 'router connected to the registry watch');

    // Without a credential nothing can be registered under the victim's name.
    expect(await register(instance('rogue-0', svc('victim', 'victim-00001'), labelsOf('victim', 'victim-00001'), rogue))).toEqual({ status: 401, code: 'credential_required' });

    // The victim's real worker, with its own credential.
    expect((await register(instance('legit-1', svc('victim', 'victim-00001'), labelsOf('victim', 'victim-00001'), legit), credentialOf('victim', 'victim-00001'))).code).toBe('ok');

    // The attacker's own revision, honestly named but labelled as the victim's: the registry takes it, the router must not use it.
    const own = credentialOf('attacker', 'attacker-00001');
    expect((await register(instance('hijack-1', svc('attacker', 'attacker-00001'), labelsOf('victim', 'victim-00001'), rogue), own)).code).toBe('ok');
    // The attacker's revision at platform addresses: statesvc, the operator, the registry, the router's own ports.
    const registryAddr = new URL(registryUrl).host;
    const routerAddr = new URL(router.url).host;
    const adminAddr = new URL(router.admin).host;
    const platform = [statesvc, statesvc.replace('127.0.0.1', '127.0.0.2'), operator, registryAddr, routerAddr, adminAddr, `localhost:${new URL(registryUrl).port}`];
    for (const [i, address] of platform.entries()) {
      expect((await register(instance(`ssrf-${i}`, svc('attacker', 'attacker-00001'), labelsOf('attacker', 'attacker-00001'), address), own)).code).toBe('ok');
    }

    // The watch delivers in commit order: once the last registration is judged, the router has seen them all.
    const last = platform.at(-1)!;
    await eventually(() => (logged().includes(`${last}" is a platform component's address`) ? true : undefined), 'the router judged every registration');
    const view = await stats();
    expect(view.endpoints.map((e) => `${e.revision} ${e.address}`)).toEqual([`team/victim-00001 ${legit}`]);

    const replies = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await request(`${router.url}/team/victim/secret`, { headers: { cookie: 'session=victim-secret', authorization: 'Bearer victim-token' } });
        return ((await res.body.json()) as { name: string }).name;
      }),
    );
    expect(new Set(replies)).toEqual(new Set(['legit']));

    // The attacker's function has no usable endpoint: requests wait and time out (504), never reaching a platform component.
    const toAttacker = await request(`${router.url}/team/attacker/metrics`);
    expect(toAttacker.statusCode).toBe(504);
    await toAttacker.body.dump();

    expect(await served(rogue)).toBe(0);
    expect(await served(statesvc)).toBe(0);
    expect(await served(operator)).toBe(0);
    expect(await served(legit)).toBe(20);
    // The router says why it ignored them (no secret in the lines).
    expect(logged()).toMatch(/registry instance team\/orrery\.functions\.team\.attacker\.attacker-00001\/hijack-1 not used: labels orrery.dev\/function=victim/);
    expect(logged()).toMatch(/not used: "127\.0\.0\.1:\d+" is a platform component's address/);
    expect(logged()).toMatch(/is this router's own listener/);
    expect(router.output()).not.toContain(own);
  });
});

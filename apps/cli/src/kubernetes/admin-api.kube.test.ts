/**
 * The admin commands (`traffic set`, `rollback`, `registry …`) against a cluster: the real
 * operator for Kubernetes runs as a host process behind a selector-less Service of the chart's
 * shape (label app.kubernetes.io/component=operator, port `http`; an EndpointSlice at the node address
 * whose targetRef is a never-scheduled Pod carrying that address, as the proxy requires),
 * generates its admin token into a Secret, and the CLI — given only --kubeconfig — finds the
 * Service, reads the Secret and calls the admin API through the real kube-apiserver's services
 * proxy. The kubeconfig users are ServiceAccounts with bearer tokens, so the API server consumes
 * `Authorization` on the way and the admin credential must survive in X-Orrery-Authorization.
 * Effects are read back through the API server and from the audit log; RBAC denials, a missing
 * Service and an operator without endpoints each give their own message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubernetesObjectApi, PatchStrategy, setHeaderOptions, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { adminKubeConfig, createNamespace, eventually, installCrds, NETWORK, REPO_ROOT, serviceAccountKubeConfig, testEnv } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeOperator, startKubeOperator } from '../testing/kube-operator.ts';
import { runCli } from '../testing/local-operator.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const GV = 'orrery.dev/v1alpha1';
type Fn = KubernetesObject & { spec: { traffic?: Array<{ revisionName?: string; latestRevision?: boolean; percent: number; tag?: string }> } };
type Obj = KubernetesObject & Record<string, unknown>;

let kc: KubeConfig;
let objects: KubernetesObjectApi;
let core: CoreV1Api;
const namespaces: Array<{ name: string; dispose: () => Promise<void> }> = [];
let release = '';
let fns = '';
let dir = '';
let op: KubeOperator | undefined;
/** Kubeconfig files of ServiceAccounts: the Role of docs/cli.md, and that Role without services/proxy or without secrets. */
const users = { admin: '', noProxy: '', noSecret: '' };

const orrery = (args: string[], env: Record<string, string> = {}) => runCli(CLI, args, dir, env);
const apply = (obj: Obj) => objects.patch(obj, undefined, undefined, 'cli-admin-test', true, PatchStrategy.ServerSideApply);
const readFn = (name: string) => objects.read<Fn>({ apiVersion: GV, kind: 'Function', metadata: { name, namespace: fns } });
/**
 * Until the operator has stopped writing the Function's status for 3 s: the admin API's traffic
 * writes carry the resourceVersion they read, so a status write in between is a conflict (the
 * CLI then says to retry, as it should).
 */
async function settled(name: string): Promise<void> {
  let last = '';
  let since = Date.now();
  await eventually(`function ${name} settled`, async () => {
    const rv = (await readFn(name)).metadata?.resourceVersion ?? '';
    if (rv !== last) [last, since] = [rv, Date.now()];
    return Date.now() - since >= 3000;
  }, 60_000, 250);
}
const fnManifest = (body: string): Obj => ({ apiVersion: GV, kind: 'Function', metadata: { name: 'shop', namespace: fns }, spec: { template: { source: { inline: `export default () => new Response('${body}')` } } } });

/** The Role docs/cli.md gives for the admin commands (release named "orrery"). */
const adminCliRole = (namespace: string): Obj => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'orrery-admin-cli', namespace },
  rules: [
    { apiGroups: [''], resources: ['services'], verbs: ['list'] },
    { apiGroups: [''], resources: ['services/proxy'], resourceNames: ['http:orrery-operator:http'], verbs: ['get', 'create'] },
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['orrery-admin-token'], verbs: ['get'] },
  ],
});

async function serviceAccountWithRole(namespace: string, name: string, role: Obj): Promise<string> {
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  await apply({ ...role, metadata: { name, namespace } });
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(file, (await serviceAccountKubeConfig(kc, namespace, name)).exportConfig(), { mode: 0o600 });
  return file;
}

/**
 * The host process as a Service's endpoint. The API server's services proxy dials only endpoints
 * whose targetRef is a Pod with that IP, so the operator gets a Pod object standing for it: never
 * scheduled (no scheduler has its name), its status saying the node address.
 */
async function hostEndpoint(namespace: string, service: string, port: number): Promise<void> {
  const pod = `${service}-host`;
  await core.createNamespacedPod({ namespace, body: { metadata: { name: pod }, spec: { schedulerName: 'nobody-schedules-this', containers: [{ name: 'host', image: 'stands-for-a-host-process' }] } } });
  await core.patchNamespacedPodStatus(
    { namespace, name: pod, body: { status: { phase: 'Running', podIP: NETWORK.hostAddress, podIPs: [{ ip: NETWORK.hostAddress }] } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await apply({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: pod, namespace, labels: { 'kubernetes.io/service-name': service, 'endpointslice.kubernetes.io/managed-by': 'cli-admin-test' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [NETWORK.hostAddress], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace, name: pod } }],
    ports: [{ name: 'http', port, protocol: 'TCP' }],
  });
}

/** The chart's two Services of the operator component, selector-less: the operator runs on the host. */
async function operatorServices(namespace: string, endpointPort?: number): Promise<void> {
  const labels = { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/instance': 'orrery', 'app.kubernetes.io/component': 'operator' };
  await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'orrery-operator', namespace, labels }, spec: { ports: [{ name: 'http', port: 7070, targetPort: endpointPort ?? 7070 }] } });
  await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'orrery-webhook', namespace, labels }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } });
  if (endpointPort !== undefined) {
    await hostEndpoint(namespace, 'orrery-operator', endpointPort);
  }
}

async function adminToken(namespace: string): Promise<string> {
  const s = await core.readNamespacedSecret({ namespace, name: 'orrery-admin-token' });
  return Buffer.from(s.data!.token!, 'base64').toString('utf8');
}

/** The operator's audit rows for functions.*, oldest first, read from its admin API directly. */
async function functionAudit(): Promise<string[]> {
  const input = encodeURIComponent(JSON.stringify({ action: 'functions.' }));
  const res = await fetch(`${op!.url}/trpc/audit.list?input=${input}`, { headers: { authorization: `Bearer ${await adminToken(release)}` } });
  const body = (await res.json()) as { result: { data: { items: Array<{ action: string; target: string; result: string; who: string }> } } };
  return body.result.data.items.reverse().map((r) => `${r.action} ${r.target} ${r.result} ${r.who}`);
}

beforeAll(async () => {
  kc = adminKubeConfig();
  objects = KubernetesObjectApi.makeApiClient(kc);
  core = kc.makeApiClient(CoreV1Api);
  dir = mkdtempSync(join(tmpdir(), 'orrery-cli-admin-kube-'));
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  for (const prefix of ['cli-rel', 'cli-fns']) namespaces.push(await createNamespace(prefix));
  [release, fns] = [namespaces[0]!.name, namespaces[1]!.name];
  op = await startKubeOperator({ kubeconfig: testEnv().adminKubeconfig, releaseNamespace: release, watchNamespace: fns, host: NETWORK.hostAddress, adminTokenSecret: 'orrery-admin-token/token' });
  await operatorServices(release, op.port);
  users.admin = await serviceAccountWithRole(release, 'release-admin', adminCliRole(release));
  const without = (resource: string): Obj => ({ ...adminCliRole(release), rules: (adminCliRole(release).rules as Array<{ resources: string[] }>).filter((r) => !r.resources.includes(resource)) });
  users.noProxy = await serviceAccountWithRole(release, 'no-proxy', without('services/proxy'));
  users.noSecret = await serviceAccountWithRole(release, 'no-secret', without('secrets'));
  // Two revisions for the split: the leader reconciles each template into one.
  await apply(fnManifest('one'));
  await eventually('revision shop-00001', () => objects.read({ apiVersion: GV, kind: 'Revision', metadata: { name: 'shop-00001', namespace: fns } }), 60_000);
  await apply(fnManifest('two'));
  await eventually('revision shop-00002', () => objects.read({ apiVersion: GV, kind: 'Revision', metadata: { name: 'shop-00002', namespace: fns } }), 60_000);
}, 180_000);

afterAll(async () => {
  await op?.stop();
  for (const n of namespaces) await n.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('admin commands through the Kubernetes API server', () => {
  it('traffic set and rollback reach the operator through the services proxy, audited as the admin token', { timeout: 120_000 }, async () => {
    await settled('shop');
    const flags = ['--kubeconfig', users.admin, '--orrery-namespace', release];
    const split = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00001=50,shop-00002=50', ...flags]);
    expect(split, split.err).toMatchObject({ code: 0 });
    expect(split.out).toMatch(/^function\.orrery\.dev\/shop traffic: .* → shop-00001=50%,shop-00002=50%\n$/);
    expect((await readFn('shop')).spec.traffic).toEqual([
      { revisionName: 'shop-00001', percent: 50 },
      { revisionName: 'shop-00002', percent: 50 },
    ]);

    // $ORRERY_NAMESPACE names the release as the flag does.
    const back = await orrery(['rollback', `${fns}/shop`, '1', '--kubeconfig', users.admin], { ORRERY_NAMESPACE: release });
    expect(back, back.err).toMatchObject({ code: 0, out: 'function.orrery.dev/shop rolled back to shop-00001: shop-00001=50%,shop-00002=50% → shop-00001=100%\n' });
    expect((await readFn('shop')).spec.traffic).toEqual([{ revisionName: 'shop-00001', percent: 100 }]);

    expect(await functionAudit()).toEqual([`functions.traffic.set ${fns}/shop ok admin-token`, `functions.rollback ${fns}/shop ok admin-token`]);
  });

  it("the admin API's own refusals come back through the proxy as from any admin API", { timeout: 60_000 }, async () => {
    const flags = ['--kubeconfig', users.admin, '--orrery-namespace', release];
    const missing = await orrery(['rollback', `${fns}/shop`, '9', ...flags]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/revision shop-00009 of function .*\/shop not found/);
    const registry = await orrery(['registry', 'status', `${fns}/nope`, ...flags]);
    expect(registry.code).toBe(1);
    expect(registry.err).toMatch(/^orrery registry: .*nope.*not found/m);
    // A wrong --token-file wins over the Secret, and is refused by the admin API (not the API server).
    writeFileSync(join(dir, 'wrong.token'), 'not-the-admin-token-0000\n');
    const wrong = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00002=100', ...flags, '--token-file', join(dir, 'wrong.token')]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/the admin API behind Service .*\/orrery-operator through the API server at https:\/\/\S+ refused the token from --token-file/);
    expect((await readFn('shop')).spec.traffic).toEqual([{ revisionName: 'shop-00001', percent: 100 }]);
  });

  it('a user without services/proxy is told which verb it lacks', { timeout: 60_000 }, async () => {
    const r = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00002=100', '--kubeconfig', users.noProxy, '--orrery-namespace', release]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the kubeconfig's user needs get on services\/proxy in namespace cli-rel-\S+, to reach the admin API through the API server .*docs\/cli\.md/);
    expect((await readFn('shop')).spec.traffic).toEqual([{ revisionName: 'shop-00001', percent: 100 }]);
  });

  it('a user who may not read the Secret is told to pass --token-file, and with it gets through', { timeout: 60_000 }, async () => {
    await settled('shop');
    const flags = ['--kubeconfig', users.noSecret, '--orrery-namespace', release];
    const refused = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00002=100', ...flags]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/needs get on secrets in namespace cli-rel-\S+, to read the admin token from Secret cli-rel-\S+\/orrery-admin-token; pass the admin token with --token-file FILE/);
    writeFileSync(join(dir, 'admin.token'), `${await adminToken(release)}\n`);
    const r = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00002=100', ...flags, '--token-file', join(dir, 'admin.token')]);
    expect(r, r.err).toMatchObject({ code: 0, out: 'function.orrery.dev/shop traffic: shop-00001=100% → shop-00002=100%\n' });
    expect((await readFn('shop')).spec.traffic).toEqual([{ revisionName: 'shop-00002', percent: 100 }]);
  });

  it('no operator Service in the namespace: says to install the chart', { timeout: 60_000 }, async () => {
    const r = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00001=100', '--kubeconfig', testEnv().adminKubeconfig, '--orrery-namespace', fns]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`no Orrery operator Service in namespace ${fns} .*helm install orrery charts/orrery -n ${fns}`));
  });

  it('an operator Service without endpoints is reported as not ready', { timeout: 60_000 }, async () => {
    const down = await createNamespace('cli-down');
    namespaces.push(down);
    await operatorServices(down.name);
    const r = await orrery(['traffic', 'set', `${fns}/shop`, 'shop-00001=100', '--kubeconfig', testEnv().adminKubeconfig, '--orrery-namespace', down.name], { ORRERY_API_TOKEN: 'any-token-0123456789' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`the operator behind Service ${down.name}/orrery-operator is not ready \\(.*\\): check kubectl -n ${down.name} get pods`));
  });
});

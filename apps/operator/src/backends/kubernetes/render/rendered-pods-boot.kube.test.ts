/**
 * The worker pods the operator renders, applied as they are to the real API server: the real
 * Deployment and ReplicaSet controllers make the pod, the process kubelet runs the real
 * `orrery-runtime` from it (image `orrery/runtime`, args and env with `$(VAR)` and the downward API
 * resolved by the kubelet, Secrets and ConfigMaps mounted at the paths the spec names, the pod's own
 * IP), against a real orrery-statesvc and a real orrery-registry on the node address. A rendered
 * flag the runtime does not know, a bind address the probes cannot reach, a token or credential
 * it cannot read fails here.
 */
import { deriveSpecializeNonce, deriveStateToken } from '@orrery/auth';
import { type Environment, type OrreryFunction, type Revision, parseResource } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PatchStrategy } from '@kubernetes/client-node';
import { adminKubeConfig, containerLog, createNamespace, eventually, installCrds, NETWORK, REPO_ROOT } from '@orrery/kube-testenv';
import { specializeRequest } from '../../../pool-executor/specialize-request.ts';
import { registrationCredentials, revisionServiceName } from '../../../reconcile/registration-credential.ts';
import { KubeClient, type KubeObject } from '../kube-client.ts';
import { type HostRegistry, type HostStatesvc, defaultServiceAccount, startHostRegistry, startHostStatesvc } from '../testing/kube-fixtures.ts';
import { COMPONENT_LABEL, ENVIRONMENT_LABEL, FUNCTION_LABEL, type Manifest, REVISION_LABEL } from './labels.ts';
import { renderPoolChildren, renderSpecializeSecret } from './pool.ts';
import { STATE_TOKEN_FILE } from '@orrery/spec';
import { STATE_DIR, renderRevisionChildren, renderServiceAccount } from './revision-children.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const MASTER = Buffer.alloc(32, 0x3c);

const COUNTER = `export default async (req, ctx) => {
  const cur = await ctx.state.get('visits');
  const next = (cur?.value ?? 0) + 1;
  await ctx.state.set('visits', next, cur ? { ifVersion: cur.version } : {});
  return Response.json({ count: next, revision: ctx.revision });
};`;

// The same counter in Python (docs/python.md): ctx.state is the Python SDK over the mounted token.
const PY_COUNTER = `def handler(request, ctx):
    cur = ctx.state.get("visits")
    nxt = (cur["value"] if cur else 0) + 1
    ctx.state.set("visits", nxt, if_version=cur["version"] if cur else None)
    return {"count": nxt, "revision": ctx.revision, "runtime": "python"}
`;

let client: KubeClient;
let NS = '';
let dispose: () => Promise<void> = async () => {};
let statesvc: HostStatesvc | undefined;
let registry: HostRegistry | undefined;

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}

/** Stores an orrery.dev object as a user would (so children's owner references carry its real uid). */
async function store<T>(obj: KubeObject): Promise<T> {
  const stored = await client.objects.patch(obj, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);
  // As JSON, as the operator's informers see it (client-node turns timestamps into Dates).
  return parse<T>(JSON.parse(JSON.stringify(stored)));
}

/** Applies rendered manifests exactly as rendered, as the operator's field manager. */
async function applyAll(manifests: Manifest[]): Promise<void> {
  for (const m of manifests) await client.apply(m);
}

/** The one Running, Ready pod of a rendered Deployment, as the ReplicaSet controller named it. */
async function readyPod(selector: string): Promise<KubeObject & { spec: Any; status: Any }> {
  return eventually(
    `a ready pod for ${selector}`,
    async () => {
      const pods = (await client.list<KubeObject & { spec: Any; status: Any }>('v1', 'Pod', NS, selector)).items;
      return pods.find((p) => p.status?.phase === 'Running' && p.status.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True'));
    },
    120_000,
    250,
  );
}

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('pods-boot'));
  await defaultServiceAccount(client, NS);
  statesvc = await startHostStatesvc([{ namespace: NS, keyspace: 'counter' }, { namespace: NS, keyspace: 'counter-py' }], MASTER);
  registry = await startHostRegistry();
}, 120_000);

afterAll(async () => {
  await dispose();
  await registry?.stop();
  await statesvc?.stop();
}, 60_000);

describe('rendered worker pods boot the real runtime under the process kubelet', () => {
  it('a stateful deploy-executor pod reads its mounted token, counts in statesvc, registers its pod IP and name with its credential', { timeout: 180_000 }, async () => {
    const fn = await store<OrreryFunction>({ apiVersion: GV, kind: 'Function', metadata: { name: 'counter', namespace: NS }, spec: { template: { source: { inline: COUNTER } }, state: {} } });
    const rev = await store<Revision>({
      apiVersion: GV,
      kind: 'Revision',
      metadata: { name: 'counter-00001', namespace: NS, labels: { [FUNCTION_LABEL]: 'counter' } },
      spec: { function: 'counter', template: { source: { inline: COUNTER } } },
    });
    const state = { url: statesvc!.url, namespace: NS, keyspace: 'counter', token: deriveStateToken(MASTER, NS, 'counter') };
    const registration = registrationCredentials(registry!.masterKey)(rev)!;
    await applyAll([renderServiceAccount(fn), ...renderRevisionChildren({ fn, revision: rev, state, registryUrls: [registry!.url], registration })]);

    const pod = await readyPod(`${REVISION_LABEL}=counter-00001`);
    const ip = pod.status.podIP as string;
    expect(ip.startsWith(NETWORK.nodePodPrefix)).toBe(true);
    // All interfaces: the kubelet's probe (it is Ready) and routers come from outside the pod.
    expect(containerLog(NS, pod.metadata.name, 'runtime')).toMatch(/^listening http:\/\/0\.0\.0\.0:8080$/m);
    // The tokens came from the mounted Secret files, never from the pod spec.
    const runtime = (pod.spec.containers as Any[]).find((c) => c.name === 'runtime')!;
    expect(JSON.stringify(pod.spec)).not.toContain(state.token);
    expect(JSON.stringify(pod.spec)).not.toContain(registration.token);
    expect((runtime.env as Any[]).map((e) => e.name)).not.toContain('ORRERY_STATE_TOKEN');
    expect((runtime.args as string[]).join(' ')).toContain(`--state-token-file ${STATE_DIR}/${STATE_TOKEN_FILE}`);

    const count = async (base: string) => (await (await fetch(`${base}/`)).json()) as { count: number; revision: string };
    expect(await count(`http://${ip}:8080`)).toEqual({ count: 1, revision: 'counter-00001' });
    expect(await count(`http://${ip}:8080`)).toEqual({ count: 2, revision: 'counter-00001' });
    // And through the revision's Service (the real kube-proxy's ClusterIP rules).
    const svc = (await client.get<KubeObject & { spec: Any }>('v1', 'Service', NS, 'counter-00001'))!;
    expect(await eventually('the Service routes to the pod', () => count(`http://${svc.spec.clusterIP as string}:80`), 30_000)).toEqual({ count: 3, revision: 'counter-00001' });
    const log = containerLog(NS, pod.metadata.name, 'runtime');
    expect(log).not.toContain(state.token);
    expect(log).not.toContain(registration.token);
    // The image's ENTRYPOINT starts the runtime through the code cache build-apps made (the pod's
    // user reads it; its read-only root filesystem keeps it as built).
    const ready = log.split('\n').find((l) => l.includes('"worker ready"'));
    expect(ready && (JSON.parse(ready) as { codeCache?: string }).codeCache).toBe('used');

    // Registered in the real registry with its credential, under its revision, at its pod IP and name.
    const service = revisionServiceName(rev);
    const [instance] = await eventually('registration', async () => {
      const list = await registry!.instances(NS, service);
      return list.length ? list : undefined;
    });
    expect(instance).toMatchObject({ instanceId: pod.metadata.name, endpoints: [expect.objectContaining({ name: 'http', host: ip, port: 8080 })], labels: expect.objectContaining({ 'orrery.dev/executor': 'deploy' }) });
  });

  it('a pool pod starts generic (its init container wrote the verifier), refuses specialize without its nonce, then serves and registers under the revision', { timeout: 180_000 }, async () => {
    const env = await store<Environment>({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 1 } });
    const poolKey = 'pool-key-for-the-boot-test-0123456789abcdef';
    await applyAll([renderSpecializeSecret(env, poolKey), ...renderPoolChildren(env, undefined, { registryUrls: [registry!.url], stateUrl: statesvc!.url })]);
    const pod = await readyPod(`${COMPONENT_LABEL}=pool`);
    const ip = pod.status.podIP as string;
    const base = `http://${ip}:8080`;
    expect(containerLog(NS, pod.metadata.name, 'runtime')).toMatch(/^listening http:\/\/0\.0\.0\.0:8080$/m);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    // The runtime container never mounts the pool key: only the init container does.
    const runtime = (pod.spec.containers as Any[]).find((c) => c.name === 'runtime')!;
    expect((runtime.volumeMounts as Any[]).map((m) => m.name)).not.toContain('pool-key');

    const rev = await store<Revision>({
      apiVersion: GV,
      kind: 'Revision',
      metadata: { name: 'hello-00003', namespace: NS, labels: { [FUNCTION_LABEL]: 'hello' } },
      spec: { function: 'hello', template: { source: { inline: 'export default (req, ctx) => new Response(`hi from ${ctx.revision}`)' }, executor: 'pool', environment: 'nodejs' } },
    });
    const body = JSON.stringify(specializeRequest(rev, { inline: rev.spec.template.source.inline }, undefined, registrationCredentials(registry!.masterKey)(rev)));
    const specialize = (bearer?: string) =>
      fetch(`${base}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body });
    expect((await specialize()).status).toBe(401);
    expect((await specialize('nope')).status).toBe(401);
    expect((await specialize(poolKey)).status).toBe(401);
    const nonce = deriveSpecializeNonce(poolKey, NS, pod.metadata.uid!);
    const ok = await specialize(nonce);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ address: `${ip}:8080` });
    expect(await (await fetch(`${base}/`)).text()).toBe('hi from hello-00003');
    // Single use: the same nonce again is refused.
    expect((await specialize(nonce)).status).toBe(409);
    const [instance] = await eventually('registration', async () => {
      const list = await registry!.instances(NS, revisionServiceName(rev));
      return list.length ? list : undefined;
    });
    expect(instance).toMatchObject({ instanceId: pod.metadata.name, endpoints: [expect.objectContaining({ host: ip, port: 8080 })], labels: expect.objectContaining({ 'orrery.dev/executor': 'pool' }) });
  });
  it('a Python Function on the python Environment: the pod runs orrery/runtime-python (python3, the inline code from the mounted index.mjs), counts in statesvc, registers; its pool pod (init container in Python too) specializes', { timeout: 240_000 }, async () => {
    const env = await store<Environment>({ apiVersion: GV, kind: 'Environment', metadata: { name: 'python', namespace: NS }, spec: { image: 'orrery/runtime-python:latest', poolSize: 1 } });
    const template = { source: { inline: PY_COUNTER }, environment: 'python' };
    const fn = await store<OrreryFunction>({ apiVersion: GV, kind: 'Function', metadata: { name: 'counter-py', namespace: NS }, spec: { template, state: { keyspace: 'counter-py' } } });
    const rev = await store<Revision>({
      apiVersion: GV,
      kind: 'Revision',
      metadata: { name: 'counter-py-00001', namespace: NS, labels: { [FUNCTION_LABEL]: 'counter-py' } },
      spec: { function: 'counter-py', template },
    });
    const state = { url: statesvc!.url, namespace: NS, keyspace: 'counter-py', token: deriveStateToken(MASTER, NS, 'counter-py') };
    const registration = registrationCredentials(registry!.masterKey)(rev)!;
    const poolKey = 'pool-key-for-the-python-boot-test-0123456789';
    // Both pods at once: they boot side by side.
    await applyAll([
      renderServiceAccount(fn),
      ...renderRevisionChildren({ fn, revision: rev, environment: env, state, registryUrls: [registry!.url], registration }),
      renderSpecializeSecret(env, poolKey),
      ...renderPoolChildren(env, undefined, { registryUrls: [registry!.url], stateUrl: statesvc!.url }),
    ]);

    const pod = await readyPod(`${REVISION_LABEL}=counter-py-00001`);
    const runtime = (pod.spec.containers as Any[]).find((c) => c.name === 'runtime')!;
    expect(runtime.image).toBe('orrery/runtime-python:latest');
    const ip = pod.status.podIP as string;
    const log = containerLog(NS, pod.metadata.name, 'runtime');
    expect(log).toMatch(/^listening http:\/\/0\.0\.0\.0:8080$/m);
    expect(log).toMatch(/"component":"runtime".*"module":"\/var\/orrery\/code\/index\.mjs".*"msg":"function loaded"/);
    const count = async () => (await (await fetch(`http://${ip}:8080/`)).json()) as { count: number; revision: string; runtime: string };
    expect(await count()).toEqual({ count: 1, revision: 'counter-py-00001', runtime: 'python' });
    expect(await count()).toEqual({ count: 2, revision: 'counter-py-00001', runtime: 'python' });
    expect(containerLog(NS, pod.metadata.name, 'runtime')).not.toContain(state.token);
    const [instance] = await eventually('registration', async () => {
      const list = await registry!.instances(NS, revisionServiceName(rev));
      return list.length ? list : undefined;
    });
    expect(instance).toMatchObject({ instanceId: pod.metadata.name, endpoints: [expect.objectContaining({ host: ip, port: 8080 })], labels: expect.objectContaining({ 'orrery.dev/executor': 'deploy' }) });

    const poolPod = await readyPod(`${ENVIRONMENT_LABEL}=python,${COMPONENT_LABEL}=pool`);
    const base = `http://${poolPod.status.podIP as string}:8080`;
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    const hello = await store<Revision>({
      apiVersion: GV,
      kind: 'Revision',
      metadata: { name: 'hello-py-00001', namespace: NS, labels: { [FUNCTION_LABEL]: 'hello-py' } },
      spec: { function: 'hello-py', template: { source: { inline: 'def handler(request, ctx):\n    return "hi from %s" % ctx.revision\n' }, executor: 'pool', environment: 'python' } },
    });
    const body = JSON.stringify(specializeRequest(hello, { inline: hello.spec.template.source.inline }));
    const specialize = (bearer: string) => fetch(`${base}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, body });
    expect((await specialize(poolKey)).status).toBe(401);
    const ok = await specialize(deriveSpecializeNonce(poolKey, NS, poolPod.metadata.uid!));
    expect(ok.status).toBe(200);
    expect(await (await fetch(`${base}/`)).text()).toBe('hi from hello-py-00001');
  });
});


/**
 * `helm install orrery charts/orrery -n orrery-system --create-namespace` with the chart's
 * defaults (ci/defaults-values.yaml: only the console off) on the real test cluster, whose
 * default StorageClass provisions hostPath volumes (kube-testenv's provisioner). Nothing is made
 * beforehand: the operator generates every credential and the webhook certificate, creates the
 * RegistryCluster, and the trial Postgres and Redis run as pods (Debian's binaries behind the
 * official images' names). Shown here: the Secrets it made, by whom, and that they survive
 * `helm upgrade`; the API server calling the webhook with the operator-made certificate (an
 * invalid Function denied); a Function's status.url answering through the router; the registry
 * working without registry.url; credentials reaching the processes as files only (not in their
 * environment or command line) and the trial Redis refusing clients without its password.
 */
import { ApiException, CoreV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject, PatchStrategy } from '@kubernetes/client-node';
import { adminKubeConfig, auditEvents, containerLog, containerPid, eventually, helm } from '@orrery/kube-testenv';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './chart-files.ts';
import { teardownRelease } from './release-teardown.ts';

const NS = 'orrery-system';
const RELEASE = 'orrery';
const GV = 'orrery.dev/v1alpha1';
const OPERATOR_SA = `system:serviceaccount:${NS}:${RELEASE}-operator`;
const chart = join(repoRoot, 'charts', 'orrery');
const GENERATED = ['orrery-store-token', 'orrery-admin-token', 'orrery-state-master-key', 'orrery-registry-master-key', 'orrery-postgres-password', 'orrery-redis-password', 'orrery-webhook-tls', 'orrery-registry-tokens'];

type Obj = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown>; data?: Record<string, string>; type?: string; [k: string]: unknown };
type Condition = { type: string; status: string };

let kc: KubeConfig;
let objects: KubernetesObjectApi;
let core: CoreV1Api;
let installedAt = 0;
const since = (e: { stageTimestamp: string }) => Date.parse(e.stageTimestamp) >= installedAt;

async function read(apiVersion: string, kind: string, name: string, namespace = NS): Promise<Obj | undefined> {
  try {
    return await objects.read<Obj>({ apiVersion, kind, metadata: { name, namespace } });
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return undefined;
    throw err;
  }
}
const apply = (obj: Obj) => objects.patch<Obj>(obj, undefined, undefined, 'e2e-test', true, PatchStrategy.ServerSideApply);
const isTrue = (o: Obj | undefined, type: string) => ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const decoded = (s: Obj | undefined, key: string) => (s?.data?.[key] === undefined ? undefined : Buffer.from(s.data[key], 'base64').toString('utf8'));

async function podStates(): Promise<string> {
  const pods = await core.listNamespacedPod({ namespace: NS });
  const lines = pods.items.map((p) => `${p.metadata?.name}: ${p.status?.phase} ${JSON.stringify(p.status?.containerStatuses?.map((c) => c.state))}`);
  for (const p of pods.items.filter((x) => x.metadata?.labels?.['app.kubernetes.io/component'] === 'operator')) {
    lines.push(`--- ${p.metadata!.name}\n${containerLog(NS, p.metadata!.name!, 'operator').trim().split('\n').slice(-20).join('\n')}`);
  }
  return lines.join('\n');
}

async function install(verb: 'install' | 'upgrade'): Promise<void> {
  const args = [verb, RELEASE, chart, '-n', NS, '-f', join(chart, 'ci', 'defaults-values.yaml'), '--wait', '--timeout', '12m'];
  if (verb === 'install') args.push('--create-namespace');
  // A changed setting, so the upgrade rolls the operator's pods: new replicas find the Secrets.
  else args.push('--set', 'operator.poolIdleTimeout=90s');
  const out = await helm(args, { timeoutMs: 780_000 });
  if (out.code !== 0) throw new Error(`helm ${verb} failed (${out.code}):\n${out.stderr}\n${await podStates()}`);
}

/**
 * A Function only the webhook refuses (the CRD's schema accepts it): keyed state on an Environment
 * that shares workers among infinitely many functions (`state_environment_infinite`).
 */
async function deniedByWebhook(name: string): Promise<string> {
  await apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'shared-infinite', namespace: NS }, spec: { allowedFunctionsPerContainer: 'infinite' } });
  const fn: Obj = { apiVersion: GV, kind: 'Function', metadata: { name, namespace: NS }, spec: { template: { environment: 'shared-infinite', source: { inline: 'export default () => "x"' } }, state: {} } };
  const err = await apply(fn).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiException);
  return (JSON.parse(String((err as ApiException<string>).body)) as { message: string }).message;
}

/** Sends Redis commands (inline protocol) on one connection and returns what the server answered. */
function redisSay(host: string, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: 6379 });
    let answer = '';
    const timer = setTimeout(() => socket.destroy(new Error(`Redis at ${host}: no answer in 5 s (so far ${JSON.stringify(answer)})`)), 5_000);
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      // One reply line per command (the commands used here all answer one line).
      if (answer.split('\r\n').length > lines.length) socket.end();
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.write(lines.map((l) => `${l}\r\n`).join(''));
  });
}

/** A running container's environment and command line, read from /proc of its host process. */
function processView(pod: string, container: string): { environ: string; cmdline: string } {
  const pid = containerPid(NS, pod, container);
  if (!pid) throw new Error(`no pid for ${pod}/${container}`);
  const read = (what: string) => readFileSync(`/proc/${pid}/${what}`, 'utf8').split('\0').join('\n');
  return { environ: read('environ'), cmdline: read('cmdline') };
}

async function caBundles(): Promise<Array<string | undefined>> {
  return Promise.all(
    ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].map(async (kind) => {
      const cfg = await read('admissionregistration.k8s.io/v1', kind, `${RELEASE}-webhook`, '');
      return (cfg?.webhooks as Array<{ clientConfig: { caBundle?: string } }> | undefined)?.[0]?.clientConfig.caBundle;
    }),
  );
}

beforeAll(async () => {
  kc = adminKubeConfig();
  objects = KubernetesObjectApi.makeApiClient(kc);
  core = kc.makeApiClient(CoreV1Api);
  await eventually(`namespace ${NS} free`, async () => !(await read('v1', 'Namespace', NS, '')), 300_000, 1000);
  installedAt = Date.now();
  await install('install');
}, 900_000);

afterAll(async () => {
  // Nothing of the release may outlive this file: the next files share the cluster.
  if (kc) for (const line of await teardownRelease(kc, RELEASE, NS)) console.error(`teardown: ${line}`);
}, 600_000);

describe.sequential('helm install charts/orrery with no values', () => {
  const before = new Map<string, { uid?: string; data?: Record<string, string> }>();

  it('the operator generated every credential once, as its own ServiceAccount; the chart rendered none', async () => {
    for (const name of GENERATED) {
      const s = await eventually(`Secret ${name}`, () => read('v1', 'Secret', name), 180_000, 1000);
      before.set(name, { uid: s.metadata?.uid, data: s.data });
      expect(s.metadata?.labels?.['app.kubernetes.io/managed-by'], name).toBe('orrery-operator');
    }
    expect(decoded(await read('v1', 'Secret', 'orrery-store-token'), 'token')).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded(await read('v1', 'Secret', 'orrery-state-master-key'), 'master-key')).toMatch(/^[0-9a-f]{64}$/);
    expect((await read('v1', 'Secret', 'orrery-webhook-tls'))?.type).toBe('kubernetes.io/tls');
    const creates = auditEvents((e) => since(e) && e.verb === 'create' && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === NS && e.responseStatus?.code === 201);
    const creator = new Map(creates.map((e) => [e.objectRef!.name, e.user.username]));
    for (const name of GENERATED) expect(creator.get(name), name).toBe(OPERATOR_SA);
    // helm's own release record is the only Secret helm wrote.
    const manifest = await helm(['get', 'manifest', RELEASE, '-n', NS]);
    expect(manifest.stdout).not.toMatch(/^kind: Secret$/m);
  });

  it('every pod runs: operator, router, statesvc and the trial Postgres and Redis on the default StorageClass', async () => {
    const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: `app.kubernetes.io/instance=${RELEASE}` });
    const components = new Set(pods.items.map((p) => p.metadata?.labels?.['app.kubernetes.io/component']));
    expect([...components].sort()).toEqual(['operator', 'postgres', 'redis', 'router', 'statesvc']);
    for (const p of pods.items) expect(p.status?.phase, p.metadata?.name).toBe('Running');
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: `data-${RELEASE}-postgres-0`, namespace: NS });
    expect(claim.status?.phase).toBe('Bound');
    expect(claim.spec?.storageClassName).toBe('standard');
  });

  it('the webhook serves the operator-made certificate: caBundle holds its CA, and the API server refuses an invalid Function through it', async () => {
    const tls = (await read('v1', 'Secret', 'orrery-webhook-tls'))!;
    const ca = decoded(tls, 'ca.crt')!;
    expect(await caBundles()).toEqual([Buffer.from(ca).toString('base64'), Buffer.from(ca).toString('base64')]);
    const served = new X509Certificate(decoded(tls, 'tls.crt')!);
    expect(served.subjectAltName).toContain(`DNS:${RELEASE}-webhook.${NS}.svc`);
    expect(served.verify(new X509Certificate(ca).publicKey)).toBe(true);
    const message = await deniedByWebhook('needs-own-worker');
    expect(message).toContain('admission webhook "validate.orrery.dev" denied the request');
    expect(message).toContain('spec.state');
    expect(await read(GV, 'Function', 'needs-own-worker')).toBeUndefined();
  });

  it('the registry works without registry.url: the operator created the RegistryCluster and it is Available at the Service the chart named', { timeout: 600_000 }, async () => {
    // Available = etcd quorum; status.endpoint = the registry API answers there.
    const rc = await eventually('RegistryCluster Available with its endpoint', async () => {
      const r = await read(GV, 'RegistryCluster', RELEASE);
      return isTrue(r, 'Available') && (r?.status as { endpoint?: string }).endpoint ? r : undefined;
    }, 480_000, 2000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await podStates()}`);
    });
    expect(rc.metadata?.labels?.['orrery.dev/default-registry-cluster']).toBe('true');
    expect((rc.status as { endpoint?: string }).endpoint).toContain(`${RELEASE}-registry.${NS}.svc:8080`);
  });

  it('a Function deployed gets a URL that answers through the router (its worker registered in that registry)', { timeout: 420_000 }, async () => {
    for (const doc of parseAllDocuments(readFileSync(join(repoRoot, 'examples', 'environment.yaml'), 'utf8'))) {
      const o = doc.toJS() as Obj | null;
      if (o) await apply({ ...o, metadata: { ...o.metadata, namespace: NS } });
    }
    await apply({
      apiVersion: GV,
      kind: 'Function',
      metadata: { name: 'hello', namespace: NS },
      spec: { template: { environment: 'nodejs', executor: 'deploy', source: { inline: 'export default () => Response.json({ hello: "defaults" })' } } },
    });
    const fn = await eventually('hello Ready with a URL', async () => {
      const f = await read(GV, 'Function', 'hello');
      return isTrue(f, 'Ready') && (f?.status as { url?: string }).url ? f : undefined;
    }, 300_000, 1000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await podStates()}`);
    });
    const url = new URL((fn.status as { url: string }).url);
    expect(url.hostname).toBe(`${RELEASE}-router.${NS}.svc`);
    // The test runs on the node, without cluster DNS: the Service's ClusterIP for its name.
    const svc = await core.readNamespacedService({ name: `${RELEASE}-router`, namespace: NS });
    const target = `http://${svc.spec!.clusterIP}:${url.port || 80}${url.pathname}/`;
    const answer = await eventually('hello answers', async () => {
      const res = await fetch(target, { signal: AbortSignal.timeout(20_000) }).catch(() => undefined);
      return res?.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
    }, 120_000, 1000);
    expect(answer).toEqual({ hello: 'defaults' });
  });

  it('routers and statesvc hold their tokens as read-only files only: not in their environment, pod env or command line', async () => {
    const secrets = {
      store: decoded(await read('v1', 'Secret', 'orrery-store-token'), 'token')!,
      master: decoded(await read('v1', 'Secret', 'orrery-state-master-key'), 'master-key')!,
      registry: decoded(await read('v1', 'Secret', 'orrery-registry-tokens'), 'replication-token')!,
      redis: decoded(await read('v1', 'Secret', 'orrery-redis-password'), 'password')!,
    };
    for (const [what, value] of Object.entries(secrets)) expect(value, what).toMatch(/^\S{16,}$/);
    for (const component of ['router', 'statesvc']) {
      const pods = (await core.listNamespacedPod({ namespace: NS, labelSelector: `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}` })).items;
      expect(pods.length, component).toBe(2);
      for (const p of pods) {
        const c = p.spec!.containers[0]!;
        const where = `${p.metadata!.name}`;
        // The pod spec: token files from Secret volumes, no token or key variable.
        expect((c.env ?? []).map((e) => e.name).filter((n) => /TOKEN|KEY/.test(n)), where).toEqual([]);
        const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.name, m]));
        const wanted = component === 'router' ? ['store-token', 'registry-token'] : ['store-token', 'state-key'];
        for (const volume of wanted) {
          expect(mounts.get(volume)?.readOnly, `${where} ${volume}`).toBe(true);
          expect(p.spec!.volumes!.find((v) => v.name === volume)?.secret?.defaultMode, `${where} ${volume}`).toBe(0o440);
        }
        expect(c.args, where).toContain('--store-token-file=/etc/orrery/store-token/token');
        // The process: what /proc shows to anyone who may read it on the node.
        const view = processView(p.metadata!.name!, component);
        expect(view.environ, where).toContain('ORRERY_LOG_LEVEL=info'); // the environment is really read
        for (const [what, value] of Object.entries(secrets)) {
          if (component === 'router' && what === 'redis') continue; // the Redis URL, by design (below)
          expect(view.environ.includes(value), `${where}: ${what} in its environment`).toBe(false);
          expect(view.cmdline.includes(value), `${where}: ${what} on its command line`).toBe(false);
        }
      }
    }
  });

  it('the trial Redis refuses clients without its generated password, and the routers sync through it with the password', { timeout: 120_000 }, async () => {
    const password = decoded(await read('v1', 'Secret', 'orrery-redis-password'), 'password')!;
    const [redisPod] = (await core.listNamespacedPod({ namespace: NS, labelSelector: `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=redis` })).items;
    const ip = redisPod!.status!.podIP!;
    // The test runs on the node: the pod IP is reachable (the chart's NetworkPolicy is not enforced here).
    expect(await redisSay(ip, ['PING'])).toMatch(/^-NOAUTH /);
    expect(await redisSay(ip, ['AUTH not-the-password', 'PING'])).toMatch(/^-(WRONGPASS|ERR) /);
    expect(await redisSay(ip, [`AUTH ${password}`, 'PING'])).toBe('+OK\r\n+PONG\r\n');
    // Neither the Redis process's command line nor its environment holds the password (it came on stdin).
    const redis = processView(redisPod!.metadata!.name!, 'redis');
    expect(redis.cmdline.includes(password)).toBe(false);
    expect(redis.environ.includes(password)).toBe(false);
    // Every router completes statesync cycles against it (a refused AUTH would count errors only).
    const routers = (await core.listNamespacedPod({ namespace: NS, labelSelector: `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=router` })).items;
    for (const r of routers) {
      const stats = await eventually(`${r.metadata!.name} synced through Redis`, async () => {
        const res = await fetch(`http://${r.status!.podIP}:9090/v1/stats`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        const body = res?.ok ? ((await res.json()) as { statesync?: { cycles: { ok: number; error: number }; syncables: Array<{ lastSuccessfulCycle?: string }> } }) : undefined;
        return body?.statesync && body.statesync.cycles.ok > 0 && body.statesync.syncables.every((x) => x.lastSuccessfulCycle) ? body.statesync : undefined;
      }, 60_000, 1000);
      expect(stats.syncables.length, r.metadata!.name).toBe(2);
    }
  });

  it('helm upgrade keeps every generated Secret and the caBundle; the webhook still denies and the function still answers', { timeout: 900_000 }, async () => {
    const bundlesBefore = await caBundles();
    await install('upgrade');
    for (const name of GENERATED) {
      const s = await read('v1', 'Secret', name);
      expect(s?.metadata?.uid, name).toBe(before.get(name)?.uid);
      expect(s?.data, name).toEqual(before.get(name)?.data);
    }
    // helm's three-way merge leaves the field it never rendered: caBundle is still the operator's.
    expect(await caBundles()).toEqual(bundlesBefore);
    expect(await deniedByWebhook('invalid-after-upgrade')).toContain('admission webhook "validate.orrery.dev" denied the request');
    const svc = await core.readNamespacedService({ name: `${RELEASE}-router`, namespace: NS });
    const res = await eventually('hello answers after the upgrade', async () => {
      const r = await fetch(`http://${svc.spec!.clusterIP}/${NS}/hello/`, { signal: AbortSignal.timeout(20_000) }).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 120_000, 1000);
    expect(await res.json()).toEqual({ hello: 'defaults' });
  });
});

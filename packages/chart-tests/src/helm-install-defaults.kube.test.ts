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
 *
 * The install, and the rest of the README's Kubernetes section, are the README's own lines
 * (readme-quickstart.ts), run with bash as a new user would: HOME holds the cluster's kubeconfig
 * as ~/.kube/config, `npm i -g` goes to a temp prefix on PATH, helm is the cache's. The only
 * additions: the install gets `-f ci/defaults-values.yaml` (the console off) and a longer
 * `--timeout`, and the `--set tracing.otlpEndpoint=…` its comment offers, pointed at an
 * in-process OTLP receiver on the node's address; the printed URL is curled with the Service's
 * name resolved to its ClusterIP (the node has no cluster DNS).
 */
import { ApiException, CoreV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject, PatchStrategy } from '@kubernetes/client-node';
import { adminKubeConfig, auditEvents, containerLog, containerPid, eventually, helm, NETWORK, testEnv } from '@orrery/kube-testenv';
import { OTLP_KIND, type OtlpReceiver, startOtlpReceiver } from '@orrery/tracing/testing';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './chart-files.ts';
import { inlineFunction } from './function-fixtures.ts';
import { readObject } from './read-object.ts';
import { quickstartLine, readmeQuickstart } from './readme-quickstart.ts';
import { teardownRelease } from './release-teardown.ts';

const NS = 'orrery-system';
const RELEASE = 'orrery';
const GV = 'orrery.dev/v1alpha1';
const OPERATOR_SA = `system:serviceaccount:${NS}:${RELEASE}-operator`;
const chart = join(repoRoot, 'charts', 'orrery');
const CLI_VERSION = (JSON.parse(readFileSync(join(repoRoot, 'apps', 'cli', 'package.json'), 'utf8')) as { version: string }).version;
const GENERATED = ['orrery-store-token', 'orrery-admin-token', 'orrery-state-master-key', 'orrery-registry-master-key', 'orrery-postgres-password', 'orrery-redis-password', 'orrery-webhook-tls', 'orrery-registry-tokens'];

type Obj = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown>; data?: Record<string, string>; type?: string; [k: string]: unknown };
type Condition = { type: string; status: string };

let kc: KubeConfig;
let objects: KubernetesObjectApi;
let core: CoreV1Api;
let installedAt = 0;
const since = (e: { stageTimestamp: string }) => Date.parse(e.stageTimestamp) >= installedAt;

const read = (apiVersion: string, kind: string, name: string, namespace = NS) => readObject<Obj>(objects, apiVersion, kind, name, namespace);
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

const quickstart = readmeQuickstart(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
let receiver: OtlpReceiver;
/** The new user's machine: HOME with ~/.kube/config, a global npm prefix on PATH. */
let home = '';

/** One README line run with bash in the repo, as the new user would; the output kept for the assertions. */
function sh(line: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = testEnv();
  const prefix = join(home, 'npm-global');
  const userEnv: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    PATH: `${join(prefix, 'bin')}:${env.binDir}:${process.env.PATH ?? ''}`,
    npm_config_prefix: prefix,
    // The machine's npm cache (the new HOME's would be empty: a slower install, nothing more).
    npm_config_cache: join(homedir(), '.npm'),
    HELM_CACHE_HOME: join(env.dir, 'helm', 'cache'),
    HELM_CONFIG_HOME: join(env.dir, 'helm', 'config'),
    HELM_DATA_HOME: join(env.dir, 'helm', 'data'),
  };
  delete userEnv.KUBECONFIG;
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: repoRoot, env: userEnv, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function install(verb: 'install' | 'upgrade'): Promise<void> {
  // Both with the trace endpoint the README's install comment offers, so the upgrade changes only
  // the setting below.
  const extra = `-f ${join(chart, 'ci', 'defaults-values.yaml')} --timeout 12m --set tracing.otlpEndpoint=${receiver.url}`;
  const line =
    verb === 'install'
      ? `${quickstartLine(quickstart, 'helm install').command} ${extra}`
      : // A changed setting, so the upgrade rolls the operator's pods: new replicas find the Secrets.
        `helm upgrade ${RELEASE} ${chart} -n ${NS} --wait ${extra} --set operator.poolIdleTimeout=90s`;
  const out = await sh(line, 780_000);
  if (out.code !== 0) throw new Error(`${line} failed (${out.code}):\n${out.stderr}\n${await podStates()}`);
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
  receiver = await startOtlpReceiver(NETWORK.hostAddress);
  home = mkdtempSync(join(tmpdir(), 'orrery-new-user-'));
  mkdirSync(join(home, '.kube'));
  copyFileSync(testEnv().adminKubeconfig, join(home, '.kube', 'config'));
  kc = adminKubeConfig();
  objects = KubernetesObjectApi.makeApiClient(kc);
  core = kc.makeApiClient(CoreV1Api);
  await eventually(`namespace ${NS} free`, async () => !(await read('v1', 'Namespace', NS, '')), 300_000, 1000);
  installedAt = Date.now();
  await install('install');
}, 900_000);

afterAll(async () => {
  // The README's function lives in `default`, outside the release: removed the way users would.
  if (home) {
    const removed = await sh('orrery delete function hello -n default --kubeconfig ~/.kube/config', 120_000);
    if (removed.code !== 0) console.error(`orrery delete function hello: ${removed.stderr}`);
  }
  // Nothing of the release may outlive this file: the next files share the cluster.
  if (kc) for (const line of await teardownRelease(kc, RELEASE, NS)) console.error(`teardown: ${line}`);
  await receiver?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  rmSync(join(repoRoot, `orrery-cli-${CLI_VERSION}.tgz`), { force: true });
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
    await apply(inlineFunction(NS, 'hello', 'export default () => Response.json({ hello: "defaults" })'));
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

  it('README: the CLI installs on its own from its tarball (npm pack, npm i -g)', { timeout: 300_000 }, async () => {
    const line = quickstartLine(quickstart, 'npm pack').command;
    const out = await sh(line, 280_000);
    expect(out.code, `${line}\n${out.stderr}`).toBe(0);
    const version = await sh('command -v orrery && orrery --version', 30_000);
    expect(version.stdout).toContain(join(home, 'npm-global', 'bin', 'orrery'));
    expect(version.stdout).toContain(CLI_VERSION);
  });

  let printedUrl = '';
  it('README: orrery deploy puts the handler file in a Function, waits with progress until Ready and prints the URL and a curl', { timeout: 420_000 }, async () => {
    const line = quickstartLine(quickstart, 'orrery deploy').command;
    const out = await sh(line, 400_000);
    expect(out.code, `${line}\n${out.stdout}\n${out.stderr}\n${await podStates()}`).toBe(0);
    // Progress lines, then the URL (the router Service's in-cluster name) and a curl to paste.
    expect(out.stdout).toMatch(/hello-00001/);
    printedUrl = /^URL: (\S+)$/m.exec(out.stdout)?.[1] ?? '';
    expect(printedUrl).toBe(`http://${RELEASE}-router.${NS}.svc/default/hello`);
    const hint = /^curl .*$/m.exec(out.stdout)?.[0] ?? '';
    expect(hint).toBe(`curl '${printedUrl}/'`);
    // The code went into a ConfigMap the Function references.
    const fn = await read(GV, 'Function', 'hello', 'default');
    expect(JSON.stringify(fn?.spec)).toMatch(/configMap/i);
    // The printed URL answers inside the cluster: curl with the Service's name resolved to its
    // ClusterIP, as cluster DNS would.
    const svc = await core.readNamespacedService({ name: `${RELEASE}-router`, namespace: NS });
    const curl = await eventually('the printed URL answers', async () => {
      const r = await sh(hint.replace(/^curl /, `curl -sS --fail --max-time 20 --resolve ${RELEASE}-router.${NS}.svc:80:${svc.spec!.clusterIP} `), 30_000);
      return r.code === 0 ? r.stdout : undefined;
    }, 120_000, 1000);
    expect(JSON.parse(curl)).toEqual({ hello: 'world' });
  });

  it('README: orrery invoke answers through the API server’s services proxy, without a port-forward', { timeout: 120_000 }, async () => {
    const line = quickstartLine(quickstart, 'orrery invoke').command;
    const out = await sh(line, 60_000);
    expect(out.code, `${line}\n${out.stderr}`).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ hello: 'world' });
    // The request went through the API server as the kubeconfig's user (system:masters here).
    const proxied = auditEvents((e) => since(e) && e.objectRef?.resource === 'services' && e.objectRef.subresource === 'proxy' && e.objectRef.name === `http:${RELEASE}-router:http`);
    expect(proxied.length).toBeGreaterThan(0);
  });

  it('README: orrery describe shows the revision, its traffic and conditions, and the Events', { timeout: 120_000 }, async () => {
    const line = quickstartLine(quickstart, 'orrery describe').command;
    const out = await sh(line, 60_000);
    expect(out.code, `${line}\n${out.stderr}`).toBe(0);
    expect(out.stdout).toMatch(/hello-00001/);
    expect(out.stdout).toMatch(/Ready\s+True/);
    const events = out.stdout.slice(out.stdout.indexOf('Events:'));
    expect(events).toMatch(/RevisionCreated/);
    expect(events).toMatch(/RevisionReady/);
  });

  it('the request is one connected trace in the collector: router (server → client) → worker', { timeout: 120_000 }, async () => {
    const routerServer = await eventually('a router span of default/hello exported', async () => {
      const found = receiver.spans.filter((s) => s.service === 'orrery-router' && s.kind === OTLP_KIND.server && s.attributes['orrery.namespace'] === 'default' && s.attributes['orrery.function'] === 'hello');
      return found.length > 0 ? found : undefined;
    }, 90_000, 1000);
    // Some trace of a request to hello has all three spans (the exporters batch: wait for the worker's).
    const connected = await eventually('router → worker spans of one trace', async () => {
      for (const server of routerServer) {
        const ofTrace = receiver.spans.filter((s) => s.traceId === server.traceId);
        const client = ofTrace.find((s) => s.service === 'orrery-router' && s.kind === OTLP_KIND.client && s.parentSpanId === server.spanId);
        const worker = client && ofTrace.find((s) => s.service === 'orrery-runtime' && s.kind === OTLP_KIND.server && s.parentSpanId === client.spanId);
        if (worker) return { server, client, worker };
      }
      return undefined;
    }, 60_000, 1000);
    expect(connected.server.attributes).toMatchObject({ 'orrery.revision': 'hello-00001', 'http.response.status_code': 200 });
    expect(connected.worker.attributes).toMatchObject({ 'orrery.function': 'hello', 'orrery.revision': 'hello-00001', 'http.response.status_code': 200 });
    // The operator traces its reconciles too.
    expect(receiver.spans.some((s) => s.service === 'orrery-operator' && s.name === 'reconcile Function')).toBe(true);
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

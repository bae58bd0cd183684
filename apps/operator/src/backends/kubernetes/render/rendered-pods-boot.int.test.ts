import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { type Environment, type OrreryFunction, type Revision, parseResource } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TSX_RUNTIME_BIN } from '../../local/runtime-bundle.ts';
import { type ObjectLookup, type PodSpec, PodProcess, podLaunch } from '../testing/fake-kubelet.ts';
import { FUNCTION_LABEL, type Manifest } from './labels.ts';
import { renderPoolDeployment, renderSpecializeSecret } from './pool.ts';
import { renderRevisionChildren } from './revision-children.ts';

// The pod specs the operator renders, run as REAL orrery-runtime processes (image = the runtime
// bin; $(VAR), downward API, mounts and the port resolved by fake-kubelet's podLaunch), against a
// real orrery-statesvc and a recording registry. A rendered flag the runtime does not know, a
// bind address the probes cannot reach or a token it cannot read fails here.
const STATESVC_BIN = join(import.meta.dirname, '..', '..', '..', '..', '..', 'statesvc', 'bin', 'orrery-statesvc.mjs');
const MASTER = Buffer.alloc(32, 0x3c);
const NS = 'team-a';
const RUNTIME = { command: process.execPath, args: [TSX_RUNTIME_BIN] };

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}

const COUNTER = `export default async (req, ctx) => {
  const cur = await ctx.state.get('visits');
  const next = (cur?.value ?? 0) + 1;
  await ctx.state.set('visits', next, cur ? { ifVersion: cur.version } : {});
  return Response.json({ count: next, revision: ctx.revision });
};`;

let dir: string;
let statesvc: ChildProcess;
let stateUrl: string;
let registry: Server;
let registryUrl: string;
const registered: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
const pods: PodProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-pods-boot-'));
  await writeFile(join(dir, 'master.key'), MASTER.toString('hex'));
  await writeFile(join(dir, 'keyspaces.yaml'), `- {namespace: ${NS}, keyspace: counter}\n`);
  statesvc = spawn(process.execPath, [STATESVC_BIN, '--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  statesvc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  stateUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`statesvc did not start: ${err}`)), 60_000);
    statesvc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  // Records what workers register (orrery-registry's public API shape: StellMap envelope).
  registry = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      if (req.url === '/api/v1/registry/register') registered.push(JSON.parse(text) as Record<string, unknown>);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ok', message: '', data: {}, requestId: '1' }));
    });
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  await Promise.all(pods.map((p) => p.stop()));
  if (statesvc?.exitCode === null) {
    const gone = new Promise((r) => statesvc.once('exit', r));
    statesvc.kill('SIGTERM');
    await gone;
  }
  registry?.closeAllConnections();
  await new Promise((r) => registry?.close(r));
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** A pod as the ReplicaSet controller would create it from the Deployment's template. */
async function runPod(deployment: Manifest, others: Manifest[], name: string): Promise<PodProcess> {
  const template = (deployment.spec as { template: { spec: PodSpec } }).template;
  const lookup: ObjectLookup = (kind, ns, n) => others.find((m) => m.kind === kind && m.metadata.namespace === ns && m.metadata.name === n);
  const launch = await podLaunch({ metadata: { name, namespace: NS }, spec: template.spec }, { runtime: RUNTIME, lookup, root: join(dir, name) });
  const p = new PodProcess(launch);
  pods.push(p);
  await p.waitReady(60_000);
  // All interfaces: the kubelet's probes and routers come from outside the pod.
  expect(p.stdout).toMatch(/^listening http:\/\/0\.0\.0\.0:\d+$/m);
  return p;
}

describe('rendered worker pods boot the real runtime', () => {
  it('a stateful deploy-executor pod reads its mounted token, counts in statesvc and registers its pod IP and name', { timeout: 90_000 }, async () => {
    const fn = parse<OrreryFunction>({
      apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'counter', namespace: NS, uid: 'fn-uid' },
      spec: { template: { source: { inline: COUNTER } }, state: {} },
    });
    const rev = parse<Revision>({
      apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name: 'counter-00001', namespace: NS, uid: 'rev-uid', labels: { [FUNCTION_LABEL]: 'counter' } },
      spec: { function: 'counter', template: { source: { inline: COUNTER } } },
    });
    const state = { url: stateUrl, namespace: NS, keyspace: 'counter', token: deriveStateToken(MASTER, NS, 'counter') };
    const kids = renderRevisionChildren({ fn, revision: rev, state, registryUrls: [registryUrl] });
    const deployment = kids.find((k) => k.kind === 'Deployment')!;
    const pod = await runPod(deployment, kids, 'counter-00001-deployment-7f9c-abcde');

    // The token came from the mounted Secret file (no ORRERY_STATE_TOKEN anywhere in the pod).
    expect(pod.launch.env.ORRERY_STATE_TOKEN).toBeUndefined();
    expect(pod.launch.args.join(' ')).toMatch(/--state-token-file \S+\/volumes\/state\/\.orrery-state-token/);
    const count = async () => (await (await fetch(`http://127.0.0.1:${pod.port}/`)).json()) as { count: number; revision: string };
    expect(await count()).toEqual({ count: 1, revision: 'counter-00001' });
    expect(await count()).toEqual({ count: 2, revision: 'counter-00001' });
    expect(pod.stderr + pod.stdout).not.toContain(state.token);

    const reg = await until(() => registered.find((r) => r.role === 'counter-00001'));
    expect(reg).toMatchObject({
      namespace: NS, application: 'counter', instanceId: 'counter-00001-deployment-7f9c-abcde',
      endpoints: [{ name: 'http', host: '127.0.0.1', port: pod.port }],
      labels: { 'orrery.dev/executor': 'deploy' },
    });
  });

  it('a pool pod starts generic, refuses specialize without its token, then serves and registers under the revision', { timeout: 90_000 }, async () => {
    const env = parse<Environment>({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS, uid: 'env-uid' }, spec: { poolSize: 1 } });
    const secret = renderSpecializeSecret(env, 'spec-token-boot');
    const deployment = renderPoolDeployment(env, undefined, { registryUrls: [registryUrl], stateUrl });
    const pod = await runPod(deployment, [secret], 'orrery-pool-nodejs-5d8f-xyz12');
    const base = `http://127.0.0.1:${pod.port}`;
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    const body = JSON.stringify({ namespace: NS, function: 'hello', revision: 'hello-00003', source: { inline: 'export default (req, ctx) => new Response(`hi from ${ctx.revision}`)' } });
    const specialize = (authorization?: string) =>
      fetch(`${base}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body });
    expect((await specialize()).status).toBe(401);
    expect((await specialize('Bearer nope')).status).toBe(401);
    const ok = await specialize('Bearer spec-token-boot');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ address: `127.0.0.1:${pod.port}` });
    expect(await (await fetch(`${base}/`)).text()).toBe('hi from hello-00003');
    const reg = await until(() => registered.find((r) => r.role === 'hello-00003'));
    expect(reg).toMatchObject({ instanceId: 'orrery-pool-nodejs-5d8f-xyz12', endpoints: [{ host: '127.0.0.1', port: pod.port }], labels: { 'orrery.dev/executor': 'pool' } });
  });
});

async function until<T>(f: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

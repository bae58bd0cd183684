/**
 * Issue 19's canary scan on the local platform (docs/security.md "Canary scan"): `orrery up` at
 * debug level with unique canary values in every place the platform holds a secret — the store,
 * admin and registry tokens and the two master keys (planted in <data-dir>/secrets before the
 * start), the password of a Redis that needs one (ORRERY_REDIS_URL; the Redis reads it from a
 * config file), a function's env secret (`orrery secret set`), the state token its worker gets
 * and an admin session id. Traffic goes through all of them: a stateful function deployed,
 * called, given a second revision and a traffic split, crashed once; admin logins with a wrong
 * and the right token. Then every log file under the data dir, every component's /metrics, the
 * operator's Events, the audit rows and the function/revision statuses (through the APIs, as a
 * client sees them), the CLI's own output and /proc/<pid>/cmdline of every process of the
 * platform are scanned: a canary anywhere fails the test, naming where.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describeFindings, findCanaries, type Canary, type CanarySource } from '@orrery/log/testing';
import { freePort } from '@orrery/etcdcluster';
import type { OrreryFunction } from '@orrery/spec';
import { createHttpStore, type ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type OrreryUp, startOrreryUp } from '../testing/orrery-up-process.ts';
import { descendants } from '../testing/process-tree.ts';
import { until } from '../testing/until.ts';
import { stateTokenOf } from '../testing/worker-state-token.ts';
import { findBinary } from './find-binary.ts';
import { type PlatformInfo, readPlatformInfo } from './platform-file.ts';
import { readCmdline } from './processes.ts';
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const base = mkdtempSync(join(tmpdir(), 'orrery-canary-'));
// `.orrery` under the working directory: the CLI's other commands find the platform from there.
const dataDir = join(base, '.orrery');
const PLANTED = {
  'store token': `canary-store-${hex(12)}`,
  'admin token': `canary-admin-${hex(12)}`,
  'registry write token': `canary-regwrite-${hex(12)}`,
  'registry replication token': `canary-replication-${hex(12)}`,
  'registry prometheus-sd token': `canary-promsd-${hex(12)}`,
  // Master keys are hex by format: random hex is as unique a canary as any.
  'state master key': hex(32),
  'registry master key': hex(32),
};
const PLANTED_FILES: Record<keyof typeof PLANTED, string> = {
  'store token': 'store.token',
  'admin token': 'admin.token',
  'registry write token': 'registry-write.token',
  'registry replication token': 'registry-replication.token',
  'registry prometheus-sd token': 'registry-prometheus-sd.token',
  'state master key': 'master.key',
  'registry master key': 'registry-master.key',
};
const REDIS_PASSWORD = `canary-redis-${hex(12)}`;
const ENV_SECRET = `canary-env-secret-${hex(12)}`;
const FN = 'canary-fn';

let up: OrreryUp;
let redis: ChildProcess | undefined;
let info: PlatformInfo;
let store: ResourceStore;
/** Canaries learnt while the platform runs: the state token a worker got, an admin session id. */
const learnt: Canary[] = [];
const cliOutputs: CanarySource[] = [];

/** Runs the CLI (cwd: beside the data dir) and keeps its output for the scan. */
function cli(args: string[], input?: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: base, input, encoding: 'utf8', timeout: 60_000, env: process.env });
  const out = `${r.stdout}${r.stderr}`;
  cliOutputs.push({ where: `output of orrery ${args.join(' ')}`, text: out });
  return { status: r.status, out };
}

const handler = (revision: number) => `
export default async (request, ctx) => {
  const url = new URL(request.url);
  if (url.searchParams.has('crash')) {
    setTimeout(() => process.exit(1), 20);
    return new Response('crashing');
  }
  const current = await ctx.state.get('hits');
  const { version } = await ctx.state.set('hits', (current?.value ?? 0) + 1);
  // Proves the worker got the env secret without showing it.
  const secret = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(process.env.API_KEY ?? ''));
  return Response.json({ revision: ${revision}, hits: (current?.value ?? 0) + 1, version, secretSha256: Buffer.from(secret).toString('hex') });
};`;

const fnManifest = (revision: number): OrreryFunction =>
  ({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: FN, namespace: 'default' },
    spec: {
      template: {
        source: { inline: handler(revision) },
        timeoutSeconds: 10,
        env: [{ name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'canary-keys', key: 'api-key' } } }],
        autoscaling: { minScale: 1 },
      },
      state: { keyspace: 'canary', maxKeys: 10, maxValueBytes: 256 },
    },
  }) as unknown as OrreryFunction;

const adminApi = (path: string, o: { input?: unknown; mutation?: boolean; token?: string } = {}) => {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) };
  if (o.mutation) return fetch(`${info.storeUrl}/trpc/${path}`, { method: 'POST', headers, body: JSON.stringify(o.input ?? {}) });
  const q = o.input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(o.input))}`;
  return fetch(`${info.storeUrl}/trpc/${path}${q}`, { headers });
};

const callFn = async (query = '') => {
  const res = await fetch(`${info.routerUrls[0]}/default/${FN}/${query}`, { signal: AbortSignal.timeout(20_000) });
  return { status: res.status, text: await res.text() };
};

/** Every log file under `dir` (component logs, worker logs, anything named *.log), as scan sources. */
function logFileSources(dir: string): CanarySource[] {
  const out: CanarySource[] = [];
  const walk = (d: string, inLogs: boolean) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, inLogs || e.name === 'logs');
      else if (e.isFile() && (inLogs || e.name.endsWith('.log')) && statSync(p).size < 64 * 1024 * 1024) out.push({ where: relative(dir, p), text: readFileSync(p, 'utf8') });
    }
  };
  walk(dir, false);
  return out;
}

beforeAll(async () => {
  // The platform's secrets, planted where `orrery up` would make them (it keeps existing ones).
  const secrets = join(dataDir, 'secrets');
  mkdirSync(secrets, { recursive: true, mode: 0o700 });
  for (const [name, file] of Object.entries(PLANTED_FILES)) writeFileSync(join(secrets, file), `${PLANTED[name as keyof typeof PLANTED]}\n`, { mode: 0o600 });
  expect(cli(['secret', 'set', 'default/canary-keys', 'api-key', '--data-dir', dataDir], ENV_SECRET).status).toBe(0);

  // A Redis that needs a password, read from its config file (not its command line).
  const redisPort = await freePort();
  writeFileSync(join(base, 'redis.conf'), `port ${redisPort}\nbind 127.0.0.1\nrequirepass ${REDIS_PASSWORD}\nsave ""\nappendonly no\n`, { mode: 0o600 });
  redis = spawn(findBinary('redis-server')!, [join(base, 'redis.conf')], { stdio: 'ignore' });

  // The test's own ORRERY_LOG_* must not leak in: the flag says what the platform runs at.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ORRERY_LOG_')));
  const env = { ...inherited, ORRERY_REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}` };
  up = startOrreryUp(dataDir, ['--no-console', '--no-examples', '--log-level', 'debug'], { cwd: base, env });
  info = await up.ready(170_000);
  store = createHttpStore(info.storeUrl, { token: PLANTED['store token'] });
}, 200_000);

afterAll(async () => {
  await store?.close().catch(() => {});
  await up?.stop();
  redis?.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
}, 90_000);

describe('canary secrets on the local platform', () => {
  it('the scanner finds a canary written into a scratch log file (it can fail)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'orrery-canary-scratch-'));
    try {
      mkdirSync(join(scratch, 'logs', 'ns'), { recursive: true });
      writeFileSync(join(scratch, 'logs', 'ns', 'worker.log'), `{"msg":"ok"}\n{"msg":"leaked ${PLANTED['admin token']}"}\n`);
      const found = findCanaries([{ name: 'admin token', value: PLANTED['admin token'] }], logFileSources(scratch));
      expect(found.map((f) => [f.canary, f.where, f.line])).toEqual([['admin token', join('logs', 'ns', 'worker.log'), 2]]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('every canary is in use: store token, admin token, Redis password, env secret, state (master key, state token)', { timeout: 240_000 }, async () => {
    // Store token: the store answers with it and refuses without it.
    expect((await fetch(`${info.storeUrl}/v1/store/Function`, { headers: { authorization: `Bearer ${PLANTED['admin token']}` } })).status).toBe(401);
    await store.apply(fnManifest(1));
    // Redis password: the supervisor's Redis check and both routers' shared tables use it.
    expect(up.output()).toMatch(/✓ redis ready at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
    const router1 = info.components.find((c) => c.name === 'router-1')!;
    await until(async () => (await (await fetch(`${router1.adminUrl}/v1/stats`)).json()) as { statesync?: { cycles?: { ok?: number } } }, (s) => (s.statesync?.cycles?.ok ?? 0) > 0, 60_000, 'router-1 synced through Redis');

    // Env secret and state (the state token derives from the master key; statesvc checks it).
    const first = await until(() => callFn(), (r) => r.status === 200, 120_000, `${FN} answers`);
    const body = JSON.parse(first.text) as { hits: number; secretSha256: string };
    expect(body.secretSha256).toBe(createHash('sha256').update(ENV_SECRET).digest('hex'));
    expect(JSON.parse((await callFn()).text)).toMatchObject({ hits: body.hits + 1 });

    // The state token the worker got (in its environment, which may hold it: not scanned).
    const workers = (await (await fetch(`${info.storeUrl}/v1/workers`, { headers: { authorization: `Bearer ${PLANTED['store token']}` } })).json()) as { pids: number[] };
    const stateToken = workers.pids.map(stateTokenOf).find((t): t is string => !!t);
    expect(stateToken, 'a worker holds ORRERY_STATE_TOKEN').toBeTruthy();
    learnt.push({ name: 'state token', value: stateToken! });

    // Admin token: wrong refused, right accepted (and its session id is one more secret).
    expect((await adminApi('auth.login', { mutation: true, input: { method: 'token', token: PLANTED['store token'] } })).status).toBe(401);
    const login = await adminApi('auth.login', { mutation: true, input: { method: 'token', token: PLANTED['admin token'] } });
    expect(login.status).toBe(200);
    const session = /orrery_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    expect(session).toMatch(/^sess_/);
    learnt.push({ name: 'admin session id', value: session! });

    // A second revision, then a split through the admin API (`orrery traffic set`, audited).
    await store.apply(fnManifest(2));
    await until(() => store.get('Revision', 'default', `${FN}-00002`), (r) => r?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true, 120_000, `${FN}-00002 Ready`);
    const traffic = cli(['traffic', 'set', `default/${FN}`, `${FN}-00001=50,${FN}-00002=50`]);
    expect(traffic.status, traffic.out).toBe(0);
    // A worker crashes once; the function answers again afterwards.
    await callFn('?crash=1').catch(() => undefined);
    // Until the crashed worker is replaced a request may meet it: wait for a clean run of six.
    await until(async () => Promise.all(Array.from({ length: 6 }, () => callFn().then((r) => r.status))), (codes) => codes.every((c) => c === 200), 120_000, `${FN} answers again after a crash`);
  });

  it('no canary in any log, /metrics, Event, audit row, status, CLI output or process command line', { timeout: 240_000 }, async () => {
    const canaries: Canary[] = [
      ...Object.entries(PLANTED).map(([name, value]) => ({ name, value })),
      { name: 'Redis password', value: REDIS_PASSWORD },
      { name: 'env secret', value: ENV_SECRET },
      ...learnt,
    ];
    expect(learnt.map((c) => c.name)).toEqual(['state token', 'admin session id']);
    const sources: CanarySource[] = [];
    const get = async (where: string, url: string, token?: string, timeoutMs = 10_000) => {
      try {
        const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
        sources.push({ where, text: await res.text() });
        return res.status;
      } catch (err) {
        return (err as Error).message;
      }
    };

    // Every component's /metrics (and the Events and workers list the operator serves).
    const current = readPlatformInfo(dataDir)!;
    const metricsUrls = current.components.flatMap((c) => [c.url, c.adminUrl].flatMap((u) => (u ?? '').split(',')).filter((u) => u.startsWith('http')).map((u) => `${u}/metrics`));
    const answered: string[] = [];
    const results: string[] = [];
    for (const url of metricsUrls) {
      // The local operator shares its event loop with the embedded store (PGlite runs on it): on
      // a loaded machine one scrape can wait out a timeout. Three tries, every result kept.
      for (let attempt = 0; attempt < 3; attempt++) {
        const r = await get(`GET ${url}`, url, undefined, 20_000);
        results.push(`${url}: ${r}`);
        if (r === 200) answered.push(url);
        if (r === 200 || r === 404) break;
      }
    }
    for (const name of ['operator', 'statesvc', 'router-1', 'router-2', 'registry', 'etcd']) {
      const c = current.components.find((x) => x.name === name)!;
      expect(answered.some((u) => u.startsWith(`${c.adminUrl ?? c.url!.split(',')[0]}/`)), `${name} answered /metrics:\n${results.join('\n')}`).toBe(true);
    }
    expect(await get('operator GET /v1/events', `${current.storeUrl}/v1/events?namespace=default`, PLANTED['store token'])).toBe(200);
    // Statuses and audit rows as a client gets them: the store API and the admin API.
    for (const kind of ['Function', 'Revision', 'RegistryCluster']) expect(await get(`store list ${kind}`, `${current.storeUrl}/v1/store/${kind}`, PLANTED['store token'])).toBe(200);
    for (const [where, path, input] of [
      ['admin API functions.get', 'functions.get', { namespace: 'default', name: FN }],
      ['admin API functions.revisions', 'functions.revisions', { namespace: 'default', name: FN }],
      ['admin API audit.list', 'audit.list', { limit: 500 }],
    ] as const) {
      const res = await adminApi(path, { input, token: PLANTED['admin token'] });
      const text = await res.text();
      expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
      sources.push({ where, text });
    }
    const audit = sources.find((s) => s.where === 'admin API audit.list')!.text;
    expect(audit).toContain('functions.traffic.set');
    expect(audit).toContain('auth.login');

    // Every log file the platform wrote, the CLI's own output.
    const logs = logFileSources(dataDir);
    expect(logs.map((l) => l.where)).toEqual(expect.arrayContaining([join('logs', '_platform', 'supervisor.log'), join('logs', '_platform', 'operator.log'), join('logs', '_platform', 'router-1.log')]));
    const workerLogs = logs.filter((l) => l.where.startsWith(join('logs', 'default', FN)));
    // The crash happened (the operator notes a worker's exit in its log) and was logged through.
    expect(workerLogs.some((l) => /worker \S+ exited code=1 /.test(l.text)), 'a worker exited with code 1').toBe(true);
    sources.push(...logs, { where: 'output of orrery up', text: up.output() }, ...cliOutputs);

    // /proc/<pid>/cmdline of the supervisor and everything below it (workers included).
    const pids = descendants(up.child.pid!);
    expect(pids.length).toBeGreaterThanOrEqual(8); // supervisor, operator, statesvc, 2 routers, registry, 3 etcd, workers
    for (const pid of pids) sources.push({ where: `/proc/${pid}/cmdline`, text: readCmdline(pid) ?? '' });

    const findings = findCanaries(canaries, sources);
    expect(findings, describeFindings(findings)).toEqual([]);
  });
});

/**
 * The local platform supervisor behind `orrery up`: starts every component as a child process
 * in dependency order, reports what is starting / ready / degraded, writes `platform.json`,
 * and stops everything (SIGTERM, drain, SIGKILL) so no process outlives it.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegistryCluster } from '@orrery/spec';
import { type ResourceStore, createHttpStore } from '@orrery/store';
import { ETCD_BIN, PLATFORM_REGISTRY, readPlatformRegistryManifest } from './platform-registry.ts';
import { applyExamples } from './examples.ts';
import { type ManagedChild, startChild } from './managed-child.ts';
import { type ComponentInfo, type PlatformInfo, platformFile, writePlatformInfo } from './platform-file.ts';
import { planPorts } from './ports.ts';
import { redisAnswers } from './probe-redis.ts';
import { findBinary } from './find-binary.ts';
import { type PlatformSecrets, ensureSecrets } from './secrets.ts';
import { buildConsole, consoleBuildIsFresh } from './console-build.ts';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..', '..');
const bin = (app: string) => join(REPO_ROOT, 'apps', app, 'bin', `orrery-${app}.mjs`);
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/orrery';

export interface UpOptions {
  dataDir: string;
  /** 0 = free ports. */
  portBase: number;
  stateDriver: 'memory' | 'postgres';
  /** Postgres URL for the postgres state driver. */
  databaseUrl?: string;
  examples: boolean;
  examplesDir?: string;
  redisUrl?: string;
  redisKeyPrefix?: string;
  routerReplicas?: number;
  /** Console / admin API users (`name:role:hash` lines from `orrery passwd`). */
  usersFile?: string;
  /** Build (when stale) and serve the console; default true. */
  console?: boolean;
  say?: (line: string) => void;
}

const node = process.execPath;
const httpUrl = (port: number) => `http://127.0.0.1:${port}`;

export class Supervisor {
  readonly dataDir: string;
  private readonly say: (line: string) => void;
  private readonly children: ManagedChild[] = [];
  readonly components: ComponentInfo[] = [];
  private store?: ResourceStore;
  private stopping = false;
  private secrets!: PlatformSecrets;
  info?: PlatformInfo;

  /** Component logs; `_platform` cannot clash with the operator's per-namespace worker log dirs. */
  get logDir(): string {
    return join(this.dataDir, 'logs', '_platform');
  }

  constructor(private readonly o: UpOptions) {
    this.dataDir = resolve(o.dataDir);
    this.say = o.say ?? ((l) => console.log(l));
  }

  get adminToken(): string {
    return this.secrets.adminToken;
  }

  private component(c: ComponentInfo): void {
    const i = this.components.findIndex((x) => x.name === c.name);
    if (i >= 0) this.components[i] = c;
    else this.components.push(c);
    if (c.state === 'ready') this.say(`  ✓ ${c.name} ready${c.url ? ` at ${c.url}` : ''}`);
    else if (c.state === 'degraded') this.say(`  ! ${c.name} degraded: ${c.reason}`);
  }

  private async launch(name: string, args: string[], env: NodeJS.ProcessEnv = process.env, app = name): Promise<ManagedChild> {
    this.say(`  … starting ${name}`);
    const child = await startChild({ name, command: node, args: [bin(app), ...args], env, logDir: this.logDir, waitForListening: true });
    this.track(child);
    return child;
  }

  private track(child: ManagedChild): void {
    this.children.push(child);
    this.writeInfo();
    child.process.once('exit', (code, signal) => {
      if (this.stopping) return;
      const c = this.components.find((x) => x.name === child.name || child.name.startsWith(`${x.name}-`));
      this.say(`  ! ${child.name} exited unexpectedly (${signal ?? `code ${code}`}); see ${child.logFile}`);
      if (c) this.component({ ...c, state: 'degraded', reason: `${child.name} exited (${signal ?? `code ${code}`})` });
      if (this.info) this.writeInfo();
    });
  }

  async start(): Promise<PlatformInfo> {
    mkdirSync(join(this.dataDir, 'run'), { recursive: true });
    this.secrets = ensureSecrets(this.dataDir);
    const ports = await planPorts(this.o.portBase);
    const storeUrl = httpUrl(ports.operator);
    const statesvcUrl = httpUrl(ports.statesvc);
    const endpointsFile = join(this.dataDir, 'run', 'endpoints.yaml');

    // Written now and after every start, so `orrery down` can stop a platform that is still starting.
    this.info = {
      storeUrl,
      routerUrls: [],
      dataDir: this.dataDir,
      pids: { supervisor: process.pid },
      components: this.components,
      stateDriver: this.o.stateDriver,
      startedAt: new Date().toISOString(),
    };
    this.writeInfo();

    // Independent chains start side by side (start-up is mostly Node/tsx boot time): the
    // registry chain (etcd → registry) next to the operator; then statesvc next to the routers.
    // Ports are planned, so the operator can be given the registry URL before it answers
    // (workers register best-effort and retry).

    // The operator owns the embedded store; DATABASE_URL is meant for the state driver, not for it.
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const operatorEnv = { ...inherited, ETCD_BIN };
    const routerAdminUrls = [ports.router1Admin, ports.router2Admin].slice(0, this.o.routerReplicas ?? 2).map(httpUrl).join(',');
    const operatorArgs = [
      '--port', String(ports.operator), '--data-dir', this.dataDir, '--endpoints-file', endpointsFile,
      '--state-url', statesvcUrl, '--master-key-file', this.secrets.masterKeyFile, '--router-url', httpUrl(ports.router1),
      // The admin API (console, CLI) lives in the operator: admin-token login, sticky counters from both routers.
      '--admin-token-file', this.secrets.adminTokenFile,
      '--router-admin-urls', routerAdminUrls,
      // StateSync resources observe the routers this supervisor runs (their Redis flags come from here).
      '--statesync-router-admin-urls', routerAdminUrls,
    ];
    // Workers register at the platform registry cluster's API (fixed port), once it runs.
    if (existsSync(ETCD_BIN)) operatorArgs.push('--registry-cluster', `${PLATFORM_REGISTRY.namespace}/${PLATFORM_REGISTRY.name}:${ports.registry}`);
    if (this.o.usersFile) operatorArgs.push('--users-file', resolve(this.o.usersFile));
    const operator = await this.launch('operator', operatorArgs, operatorEnv);
    this.component({ name: 'operator', state: 'ready', url: operator.url, healthUrl: `${operator.url}/healthz`, pid: operator.pid });
    this.store = createHttpStore(storeUrl);

    const startStatesvc = async () => {
      const args = ['--port', String(ports.statesvc), '--driver', this.o.stateDriver, '--master-key-file', this.secrets.masterKeyFile];
      if (this.o.stateDriver === 'postgres') args.push('--database-url', this.o.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_POSTGRES_URL);
      args.push('--store-url', storeUrl); // keyspace declarations come from the Functions in the store
      try {
        const statesvc = await this.launch('statesvc', args);
        this.component({ name: 'statesvc', state: 'ready', url: statesvc.url, healthUrl: `${statesvc.url}/healthz`, pid: statesvc.pid });
      } catch (err) {
        this.component({ name: 'statesvc', state: 'degraded', reason: (err as Error).message.split('\n')[0] });
      }
    };

    const startRouter = async (i: number, redisUrl: string | undefined, registryUrl: string | undefined): Promise<string | undefined> => {
      const port = i === 1 ? ports.router1 : i === 2 ? ports.router2 : 0;
      const adminPort = i === 1 ? ports.router1Admin : i === 2 ? ports.router2Admin : 0;
      const args = ['--port', String(port), '--admin-port', String(adminPort), '--router-id', `router-${i}`, '--store-url', storeUrl];
      // The operator's endpoints file always works; the registry watch adds to it when it runs.
      args.push('--endpoints-file', endpointsFile, ...(registryUrl ? ['--registry-url', registryUrl] : []));
      // Cold starts: pokes and stats go to the operator's autoscaler, pool specializations to its executor.
      args.push('--autoscaler-url', storeUrl, '--executor-url', storeUrl);
      if (redisUrl) args.push('--redis-url', redisUrl, '--redis-key-prefix', this.o.redisKeyPrefix ?? 'orrery');
      try {
        const r = await this.launch(`router-${i}`, args, process.env, 'router');
        this.component({ name: `router-${i}`, state: 'ready', url: r.url, adminUrl: r.adminUrl, healthUrl: `${r.adminUrl}/healthz`, pid: r.pid });
        return r.url;
      } catch (err) {
        this.component({ name: `router-${i}`, state: 'degraded', reason: (err as Error).message.split('\n')[0] });
        return undefined;
      }
    };
    const startRouters = async (registryUrl: string | undefined): Promise<string[]> => {
      const redisUrl = this.o.redisUrl ?? 'redis://127.0.0.1:6379';
      const shared = await this.ensureRedis(redisUrl);
      const replicas = this.o.routerReplicas ?? 2;
      const urls = await Promise.all(Array.from({ length: replicas }, (_, i) => startRouter(i + 1, shared ? redisUrl : undefined, registryUrl)));
      return urls.filter((u): u is string => u !== undefined);
    };
    const startConsole = async (): Promise<void> => {
      if (this.o.console === false) return;
      try {
        if (!consoleBuildIsFresh()) await buildConsole(this.logDir, this.say);
        const c = await this.launch('console', ['--port', String(ports.console), '--api-url', storeUrl], { ...process.env, NEXT_TELEMETRY_DISABLED: '1' });
        this.component({ name: 'console', state: 'ready', url: c.url, healthUrl: `${c.url}/healthz`, pid: c.pid });
      } catch (err) {
        this.component({ name: 'console', state: 'degraded', reason: (err as Error).message.split('\n')[0] });
      }
    };
    // statesvc and the console need no registry: they start while etcd bootstraps; the routers
    // wait for the registry's URL.
    const others = Promise.all([startStatesvc(), startConsole()]);
    const registryUrl = await this.startRegistry();
    const routerUrls = await startRouters(registryUrl);
    await others;

    if (this.o.examples) {
      const dir = this.o.examplesDir ?? join(REPO_ROOT, 'examples');
      this.say(`  … applying examples from ${dir}`);
      const { applied, failed } = await applyExamples(this.store, dir, this.say);
      this.say(`  ✓ examples: ${applied} resources applied${failed ? `, ${failed} failed` : ''}`);
    }

    this.info = {
      ...this.info,
      routerUrls,
      registryUrl,
      statesvcUrl: this.components.find((c) => c.name === 'statesvc')?.state === 'ready' ? statesvcUrl : undefined,
      consoleUrl: this.components.find((c) => c.name === 'console' && c.state === 'ready')?.url,
    };
    this.writeInfo();
    return this.info;
  }

  private writeInfo(): void {
    if (!this.info) return;
    const pids: PlatformInfo['pids'] = { supervisor: process.pid };
    for (const c of this.children) if (!c.exited()) pids[c.name] = c.pid;
    this.info = { ...this.info, pids, components: this.components };
    writePlatformInfo(this.info);
  }

  /**
   * Redis for the routers' shared tables: one that already answers, else a redis-server child
   * of ours (no persistence: the tables rebuild themselves), else Degraded.
   */
  private async ensureRedis(redisUrl: string): Promise<boolean> {
    const { hostname, port: p } = new URL(redisUrl);
    const port = Number(p || 6379);
    if (await redisAnswers(hostname, port)) {
      this.component({ name: 'redis', state: 'ready', url: redisUrl });
      return true;
    }
    const redisBin = findBinary('redis-server');
    const local = hostname === '127.0.0.1' || hostname === 'localhost';
    if (!redisBin || !local) {
      const why = redisBin ? `no Redis answers at ${redisUrl}` : 'redis-server is not installed (apt-get install redis-server)';
      this.component({ name: 'redis', state: 'degraded', reason: `${why}: the router replicas keep separate tables` });
      return false;
    }
    this.say(`  … starting redis-server on port ${port}`);
    const dir = join(this.dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    const child = await startChild({
      name: 'redis',
      command: redisBin,
      args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      logDir: this.logDir,
    });
    this.track(child);
    const end = Date.now() + 15_000;
    while (Date.now() < end && !child.exited()) {
      if (await redisAnswers(hostname, port)) {
        this.component({ name: 'redis', state: 'ready', url: redisUrl, pid: child.pid });
        return true;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await child.stop(3_000);
    this.component({ name: 'redis', state: 'degraded', reason: `redis-server did not answer on port ${port} (see ${child.logFile}): the router replicas keep separate tables` });
    return false;
  }

  /**
   * The platform registry is the examples' RegistryCluster (`default/registry`: 3 etcd members and
   * the registry API), run by the operator's reconciler like any other cluster — one registry, the
   * one the console's membership page manages. Applied before the examples so the routers can be
   * given its URL; undefined (and a Degraded line) when that is impossible.
   */
  private async startRegistry(): Promise<string | undefined> {
    if (!existsSync(ETCD_BIN)) {
      this.component({ name: 'registry', state: 'degraded', reason: `no etcd binary at ${ETCD_BIN}: install etcd-server (as root: apt-get install etcd-server); routers use the operator's endpoints file instead` });
      return undefined;
    }
    const { namespace, name } = PLATFORM_REGISTRY;
    try {
      this.say(`  … starting the registry cluster ${namespace}/${name} (3 etcd members and the registry API, run by the operator)`);
      await this.store!.apply(readPlatformRegistryManifest(this.o.examplesDir ?? join(REPO_ROOT, 'examples')));
      const end = Date.now() + 120_000;
      let rc: RegistryCluster | undefined;
      while (Date.now() < end) {
        rc = (await this.store!.get('RegistryCluster', namespace, name)) as RegistryCluster | undefined;
        if (rc?.status?.endpoint && rc.status.leader) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      if (!rc?.status?.endpoint || !rc.status.leader) {
        const why = rc?.status?.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True')?.message ?? 'no leader and registry API within 120 s';
        throw new Error(why);
      }
      const members = (rc.status.members ?? []).map((m) => m.clientURL).filter((u): u is string => !!u);
      this.component({ name: 'etcd', state: 'ready', url: members.join(','), healthUrl: members[0] ? `${members[0]}/health` : undefined });
      this.component({ name: 'registry', state: 'ready', url: rc.status.endpoint, healthUrl: `${rc.status.endpoint}/healthz` });
      return rc.status.endpoint;
    } catch (err) {
      this.component({ name: 'registry', state: 'degraded', reason: `${(err as Error).message.split('\n')[0]}; routers use the operator's endpoints file instead` });
      return undefined;
    }
  }

  /** Every process that must be gone after stop(): our children and the operator's workers. */
  async workerPids(): Promise<number[]> {
    const op = this.components.find((c) => c.name === 'operator');
    if (!op?.url) return [];
    try {
      const body = (await (await fetch(`${op.url}/v1/workers`, { signal: AbortSignal.timeout(3_000) })).json()) as { pids?: number[] };
      return body.pids ?? [];
    } catch {
      return [];
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const workers = await this.workerPids();
    await this.store?.close().catch(() => {});
    // Reverse start order: traffic stops first, the registry and etcd last.
    const byName = (prefix: string) => this.children.filter((c) => c.name === prefix || c.name.startsWith(`${prefix}-`));
    for (const group of [byName('console'), byName('router'), byName('statesvc'), byName('operator'), byName('registry'), byName('etcd'), byName('redis')]) {
      if (group.length === 0) continue;
      this.say(`  … stopping ${group.map((c) => c.name).join(', ')}`);
      await Promise.all(group.map((c) => c.stop(group[0]!.name === 'operator' ? 30_000 : 10_000)));
    }
    // The operator drains its workers on SIGTERM; anything left (a killed operator) goes now.
    for (const pid of workers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone, as it should be
      }
    }
    rmSync(platformFile(this.dataDir), { force: true });
    this.say('  ✓ stopped: no process left running');
  }
}

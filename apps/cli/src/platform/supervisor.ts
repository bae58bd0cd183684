/**
 * The local platform supervisor behind `orrery up`: starts every component as a child process
 * in dependency order, reports what is starting / ready / degraded, writes `platform.json`,
 * and stops everything (SIGTERM, drain, SIGKILL) so no process outlives it.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger, type LogLevel, registerSecret, registerUrlSecret } from '@orrery/log';
import { LOCAL_ROUTER_CERTS_DIR, type RegistryCluster } from '@orrery/spec';
import { type ResourceStore, createHttpStore } from '@orrery/store';
import { ETCD_BIN, PLATFORM_REGISTRY, readPlatformRegistryManifest } from './platform-registry.ts';
import { registryWaitSummary } from './registry-wait-summary.ts';
import { applyExamples } from './examples.ts';
import { type ChildSpec, type ManagedChild, startChild } from './managed-child.ts';
import { type ComponentInfo, type PlatformInfo, platformFile, writePlatformInfo } from './platform-file.ts';
import { planPorts } from './ports.ts';
import { redisAnswers } from './probe-redis.ts';
import { findBinary } from './find-binary.ts';
import { type PlatformSecrets, ensureSecrets } from './secrets.ts';
import { buildConsole, consoleBuildIsFresh } from './console-build.ts';
import { type RestartPolicy, type RestartState, DEFAULT_RESTART_POLICY, decideRestart, formatDelay, initialRestartState, markStarted } from './restart-policy.ts';
import { stopProcessGroup } from './processes.ts';
import { urlWithoutPassword } from './url-without-password.ts';
import { type DevCa, ensureDevCa } from '../tls/dev-ca.ts';
import { issueMissingDevCertificates } from '../tls/missing-dev-certificates.ts';
import { planQueueBroker } from './queue-broker.ts';
import { nodeFlagsFor, withMallocSettings } from './node-memory-settings.ts';

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
  /** Also the opt-in examples/python (OPT_IN_EXAMPLES in examples.ts): the Python twins of counter and canary. */
  pythonExamples?: boolean;
  redisUrl?: string;
  redisKeyPrefix?: string;
  /** NATS JetStream for queue triggers, run elsewhere; absent = our own nats-server when installed (queue-broker.ts). */
  queueUrl?: string;
  /**
   * `--tls`: the routers also listen for HTTPS (ports N+10 and N+11) for spec.domains, with the
   * certificates the operator checks into <data-dir>/router-certs; a development CA in
   * <data-dir>/tls signs a certificate for every tls.secretName without a local Secret yet.
   */
  tls?: boolean;
  routerReplicas?: number;
  /** Console / admin API users (`name:role:hash` lines from `orrery passwd`). */
  usersFile?: string;
  /** Build (when stale) and serve the console; default true. */
  console?: boolean;
  /** Restarting children that exit on their own (default DEFAULT_RESTART_POLICY). */
  restartPolicy?: RestartPolicy;
  /** Level of the supervisor's own log, `<data-dir>/logs/_platform/supervisor.log` (default info). */
  logLevel?: LogLevel;
  say?: (line: string) => void;
}

/** How to (re)start one child and what its component looks like once it is ready. */
interface ChildRecipe {
  name: string;
  /** Starts it and resolves once it is ready (or rejects: it did not become ready). */
  start(signal: AbortSignal): Promise<ManagedChild>;
  component(child: ManagedChild): ComponentInfo;
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
  /** Aborts children that are still starting when stop() begins. */
  private readonly abort = new AbortController();
  private readonly recipes = new Map<string, ChildRecipe>();
  private readonly restarts = new Map<string, RestartState>();
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  private readonly restarting = new Set<Promise<void>>();
  private secrets!: PlatformSecrets;
  /** What the supervisor does, as JSON records (the status lines on the terminal are for people). */
  private log: Logger;
  private logFd?: number;
  info?: PlatformInfo;

  /** Component logs; `_platform` cannot clash with the operator's per-namespace worker log dirs. */
  get logDir(): string {
    return join(this.dataDir, 'logs', '_platform');
  }

  constructor(private readonly o: UpOptions) {
    this.dataDir = resolve(o.dataDir);
    this.say = o.say ?? ((l) => console.log(l));
    this.log = createLogger({ component: 'supervisor', level: 'silent' });
  }

  /** Opens supervisor.log (appended, written synchronously: a record before exit is not lost). */
  private openLog(): void {
    mkdirSync(this.logDir, { recursive: true });
    this.logFd = openSync(join(this.logDir, 'supervisor.log'), 'a', 0o600);
    // Records after stop() closed the file (a late exit event) are dropped, not written to a reused fd.
    const write = (line: string) => this.logFd !== undefined && writeSync(this.logFd, line);
    this.log = createLogger({ component: 'supervisor', level: this.o.logLevel, destination: { write } });
  }

  get adminToken(): string {
    return this.secrets.adminToken;
  }

  /** With `--tls`, once started: the development CA and the routers' HTTPS ports. */
  tlsInfo?: { ca: DevCa; ports: number[] };

  get secretFiles(): Pick<PlatformSecrets, 'adminTokenFile' | 'registryWriteTokenFile'> {
    return { adminTokenFile: this.secrets.adminTokenFile, registryWriteTokenFile: this.secrets.registryWriteTokenFile };
  }

  private component(c: ComponentInfo, quiet = false): void {
    const i = this.components.findIndex((x) => x.name === c.name);
    if (i >= 0) this.components[i] = c;
    else this.components.push(c);
    if (this.info) this.writeInfo();
    if (c.state === 'degraded') this.log.warn('component degraded', { name: c.name, reason: c.reason });
    else this.log.info(`component ${c.state}`, { name: c.name, url: c.url, pid: c.pid });
    if (quiet) return;
    if (c.state === 'ready') this.say(`  ✓ ${c.name} ready${c.url ? ` at ${c.url}` : ''}`);
    else if (c.state === 'degraded') this.say(`  ! ${c.name} degraded: ${c.reason}`);
  }

  /** Starts a child from its recipe, tracks it (restarts included) and records its component. */
  private async run(recipe: ChildRecipe): Promise<ManagedChild> {
    this.recipes.set(recipe.name, recipe);
    this.say(`  … starting ${recipe.name}`);
    this.log.info('starting', { name: recipe.name });
    const child = await recipe.start(this.abort.signal);
    this.track(child, recipe.component(child));
    return child;
  }

  /** A node app of this repository (`apps/<app>/bin/orrery-<app>.mjs`) that prints `listening …`. */
  private nodeApp(name: string, args: string[], env: NodeJS.ProcessEnv, app: string, component: ChildRecipe['component']): ChildRecipe {
    const spec: ChildSpec = { name, command: node, args: [...nodeFlagsFor(app), bin(app), ...args], env: withMallocSettings(env), logDir: this.logDir, waitForListening: true };
    return { name, start: (signal) => startChild({ ...spec, signal }), component };
  }

  private track(child: ManagedChild, ready?: ComponentInfo): void {
    this.children.push(child);
    this.restarts.set(child.name, markStarted(this.restarts.get(child.name) ?? initialRestartState(), Date.now()));
    // The pid and its component in one write: platform.json (and `orrery status`) never shows a
    // restarted child's new pid beside its old "restarting" state.
    if (ready) this.component(ready);
    else this.writeInfo();
    child.process.once('exit', (code, signal) => {
      if (this.stopping) return;
      const i = this.children.indexOf(child);
      if (i >= 0) this.children.splice(i, 1);
      this.crashed(child.name, signal ?? `exit code ${code}`, child.logFile, child.pid);
    });
  }

  /** A child exited on its own (or its restart did not become ready): restart it later, or give up. */
  private crashed(name: string, how: string, logFile: string, pid: number | undefined): void {
    const c = this.components.find((x) => x.name === name || name.startsWith(`${x.name}-`)) ?? { name, state: 'degraded' as const };
    const recipe = this.recipes.get(name);
    this.log.warn('child exited unexpectedly', { name, how, pid, logFile });
    if (!recipe) {
      this.say(`  ! ${name} exited unexpectedly (${how}); see ${logFile}`);
      this.component({ ...c, state: 'degraded', reason: `${name} exited (${how})`, pid: undefined });
      return;
    }
    const decision = decideRestart(this.restarts.get(name) ?? initialRestartState(), Date.now(), this.o.restartPolicy ?? DEFAULT_RESTART_POLICY);
    this.restarts.set(name, decision.state);
    if (decision.action === 'give-up') {
      this.log.error('not restarting any more', { name, reason: decision.reason });
      this.component({ ...c, state: 'degraded', reason: `${decision.reason} (last: ${how}); not restarted any more — see ${logFile}`, pid: undefined });
      return;
    }
    this.say(`  ! ${name} exited unexpectedly (${how}); restarting ${name} (${how}, attempt ${decision.attempt}) in ${formatDelay(decision.delayMs)}`);
    this.log.info('restart scheduled', { name, attempt: decision.attempt, delayMs: decision.delayMs });
    this.component({ ...c, state: 'degraded', reason: `restarting after ${how} (attempt ${decision.attempt})`, pid: undefined }, true);
    const timer = setTimeout(() => {
      this.restartTimers.delete(timer);
      const job = this.relaunch(recipe, logFile, pid).finally(() => this.restarting.delete(job));
      this.restarting.add(job);
    }, decision.delayMs);
    this.restartTimers.add(timer);
  }

  private async relaunch(recipe: ChildRecipe, logFile: string, oldPid: number | undefined): Promise<void> {
    if (this.stopping) return;
    // What the dead child started (the operator's workers and etcd members) would hold ports.
    if (oldPid !== undefined) {
      const left = await stopProcessGroup(oldPid, 5_000).catch(() => []);
      if (left.length) this.say(`  … stopped ${left.length} process(es) ${recipe.name} had left behind (its workers, etcd members, …)`);
      if (left.length) this.log.info('stopped processes left behind', { name: recipe.name, pids: left });
    }
    if (this.stopping) return;
    try {
      const child = await recipe.start(this.abort.signal);
      // stop() waits for this job, then stops it with the rest.
      this.track(child, this.stopping ? undefined : recipe.component(child));
    } catch (err) {
      if (this.stopping) return;
      this.crashed(recipe.name, `restart failed: ${(err as Error).message.split('\n')[0]}`, logFile, undefined);
    }
  }

  async start(): Promise<PlatformInfo> {
    mkdirSync(join(this.dataDir, 'run'), { recursive: true });
    this.secrets = ensureSecrets(this.dataDir);
    // Every credential the platform runs with, masked in the supervisor's records (redaction.ts).
    for (const file of [this.secrets.masterKeyFile, this.secrets.registryMasterKeyFile, this.secrets.storeTokenFile, this.secrets.registryWriteTokenFile]) registerSecret(readFileSync(file, 'utf8').trim());
    for (const token of [this.secrets.adminToken, this.secrets.replicationToken, this.secrets.prometheusSdToken]) registerSecret(token);
    registerUrlSecret(this.o.redisUrl);
    registerUrlSecret(this.o.databaseUrl ?? process.env.DATABASE_URL);
    this.openLog();
    this.log.info('starting the local platform', { dataDir: this.dataDir, stateDriver: this.o.stateDriver, portBase: this.o.portBase, pid: process.pid });
    const ports = await planPorts(this.o.portBase);
    const storeUrl = httpUrl(ports.operator);
    const statesvcUrl = httpUrl(ports.statesvc);
    const endpointsFile = join(this.dataDir, 'run', 'endpoints.yaml');

    // Written now and after every start, so `orrery down` can stop a platform that is still starting.
    this.info = {
      storeUrl,
      storeTokenFile: this.secrets.storeTokenFile,
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
      // The console forwards the browser's address: login limits then count the real client,
      // not 127.0.0.1 (where 30 failed logins by anyone would lock every console login out).
      '--trusted-proxies', 'loopback',
      '--router-admin-urls', routerAdminUrls,
      // StateSync resources observe the routers this supervisor runs (their Redis flags come from here).
      '--statesync-router-admin-urls', routerAdminUrls,
      // Registry writes: workers get registration credentials from this key; the registry it runs
      // gets the same key and the write tokens (required: no open registration on the platform).
      '--registry-master-key-file', this.secrets.registryMasterKeyFile,
      '--registry-write-tokens-file', this.secrets.registryWriteTokensFile, '--require-registry-write-tokens',
      // The store and the control endpoints take this token from everyone, loopback included.
      '--store-token-file', this.secrets.storeTokenFile,
    ];
    // Workers register at the platform registry cluster's API (fixed port), once it runs.
    if (existsSync(ETCD_BIN)) operatorArgs.push('--registry-cluster', `${PLATFORM_REGISTRY.namespace}/${PLATFORM_REGISTRY.name}:${ports.registry}`);
    if (this.o.usersFile) operatorArgs.push('--users-file', resolve(this.o.usersFile));
    // Queue triggers' broker: started before the operator (it is up in milliseconds); without one the
    // operator still runs and each queue trigger says NoBroker.
    const queueUrl = await this.ensureQueueBroker(ports.nats);
    if (queueUrl) operatorArgs.push('--queue-url', queueUrl);
    await this.run(this.nodeApp('operator', operatorArgs, operatorEnv, 'operator', (c) => ({ name: 'operator', state: 'ready', url: c.url, healthUrl: `${c.url}/healthz`, pid: c.pid })));
    this.store = createHttpStore(storeUrl, { token: this.storeToken() });

    const startStatesvc = async () => {
      const args = ['--port', String(ports.statesvc), '--driver', this.o.stateDriver, '--master-key-file', this.secrets.masterKeyFile];
      // The Postgres URL may hold a password: the environment, never argv (public in `ps`).
      const { DATABASE_URL: _inherited, ...env } = process.env;
      if (this.o.stateDriver === 'postgres') env.DATABASE_URL = this.o.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_POSTGRES_URL;
      // The memory driver keeps its journal there, so state survives a restart of statesvc or of the platform.
      else args.push('--data-dir', join(this.dataDir, 'state'));
      args.push('--store-url', storeUrl, '--store-token-file', this.secrets.storeTokenFile); // keyspace declarations come from the Functions in the store
      try {
        await this.run(this.nodeApp('statesvc', args, env, 'statesvc', (c) => ({ name: 'statesvc', state: 'ready', url: c.url, healthUrl: `${c.url}/healthz`, pid: c.pid })));
      } catch (err) {
        this.component({ name: 'statesvc', state: 'degraded', reason: (err as Error).message.split('\n')[0] });
      }
    };

    const startRouter = async (i: number, redisUrl: string | undefined, registryUrl: string | undefined): Promise<string | undefined> => {
      const port = i === 1 ? ports.router1 : i === 2 ? ports.router2 : 0;
      const adminPort = i === 1 ? ports.router1Admin : i === 2 ? ports.router2Admin : 0;
      const args = ['--port', String(port), '--admin-port', String(adminPort), '--router-id', `router-${i}`, '--store-url', storeUrl, '--store-token-file', this.secrets.storeTokenFile];
      // The operator's endpoints file always works; the registry watch adds to it when it runs.
      args.push('--endpoints-file', endpointsFile, ...(registryUrl ? ['--registry-url', registryUrl] : []));
      // Cold starts: pokes and stats go to the operator's autoscaler, pool specializations to its executor.
      args.push('--autoscaler-url', storeUrl, '--executor-url', storeUrl);
      // Registry endpoints on platform components are never used (the operator, registry and Redis URLs count by themselves).
      for (const p of platformEndpoints()) args.push('--platform-endpoint', p);
      // The Redis URL may hold a password: ORRERY_REDIS_URL, never argv (public in `ps`).
      const { ORRERY_REDIS_URL: _inherited, ...env } = process.env;
      if (redisUrl) {
        env.ORRERY_REDIS_URL = redisUrl;
        args.push('--redis-key-prefix', this.o.redisKeyPrefix ?? 'orrery');
      }
      const tlsPort = i === 1 ? ports.router1Tls : i === 2 ? ports.router2Tls : 0;
      // Custom domains over HTTPS: the operator writes the checked certificates there (docs/domains.md).
      if (this.o.tls) args.push('--tls-port', String(tlsPort), '--tls-certs-dir', join(this.dataDir, LOCAL_ROUTER_CERTS_DIR));
      const name = `router-${i}`;
      try {
        const r = await this.run(this.nodeApp(name, args, env, 'router', (c) => ({ name, state: 'ready', url: c.url, adminUrl: c.adminUrl, healthUrl: `${c.adminUrl}/healthz`, pid: c.pid })));
        return r.url;
      } catch (err) {
        this.component({ name: `router-${i}`, state: 'degraded', reason: (err as Error).message.split('\n')[0] });
        return undefined;
      }
    };
    // statesvc, the console, the other routers and the etcd members (known once the registry runs).
    const platformEndpoints = (): string[] => [
      statesvcUrl,
      httpUrl(ports.console),
      ...[ports.router1, ports.router2, ports.router1Admin, ports.router2Admin, ...(this.o.tls ? [ports.router1Tls, ports.router2Tls] : [])].filter((p) => p > 0).map(httpUrl),
      ...(this.components.find((c) => c.name === 'etcd')?.url ?? '').split(',').filter(Boolean),
    ];
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
        const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
        await this.run(this.nodeApp('console', ['--port', String(ports.console), '--api-url', storeUrl], env, 'console', (c) => ({ name: 'console', state: 'ready', url: c.url, healthUrl: `${c.url}/healthz`, pid: c.pid })));
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
      const { applied, failed } = await applyExamples(this.store, dir, this.say, this.o.pythonExamples ? ['python'] : []);
      this.say(`  ✓ examples: ${applied} resources applied${failed ? `, ${failed} failed` : ''}`);
      if (failed) this.log.warn('examples applied, some failed', { dir, applied, failed });
      else this.log.info('examples applied', { dir, applied });
    }
    if (this.o.tls) {
      const ca = await ensureDevCa(this.dataDir);
      for (const line of await issueMissingDevCertificates(this.store, this.dataDir, ca)) this.say(`  ✓ ${line}`);
      this.tlsInfo = { ca, ports: [ports.router1Tls, ports.router2Tls].slice(0, this.o.routerReplicas ?? 2) };
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

  private storeToken(): string {
    return readFileSync(this.secrets.storeTokenFile, 'utf8').trim();
  }

  private writeInfo(): void {
    if (!this.info) return;
    const pids: PlatformInfo['pids'] = { supervisor: process.pid };
    for (const c of this.children) if (!c.exited()) pids[c.name] = c.pid;
    this.info = { ...this.info, pids, components: this.components };
    writePlatformInfo(this.info);
  }

  /** NATS JetStream for queue triggers as planQueueBroker decides; its URL, or undefined (Degraded). */
  private async ensureQueueBroker(port: number): Promise<string | undefined> {
    const plan = planQueueBroker({ queueUrl: this.o.queueUrl, natsServer: findBinary('nats-server'), port, dataDir: this.dataDir });
    if (plan.kind === 'none') {
      this.component({ name: 'nats', state: 'degraded', reason: plan.reason });
      return undefined;
    }
    if (plan.kind === 'external') {
      this.component({ name: 'nats', state: 'ready', url: plan.url });
      return plan.url;
    }
    mkdirSync(plan.storeDir, { recursive: true });
    const spec: ChildSpec = { name: 'nats', command: plan.command, args: plan.args, logDir: this.logDir };
    try {
      await this.run({
        name: 'nats',
        component: (c) => ({ name: 'nats', state: 'ready', url: plan.url, pid: c.pid }),
        // Ready once it accepts connections (nats-server prints no `listening http://` line).
        start: async (signal) => {
          const child = await startChild(spec);
          const end = Date.now() + 10_000;
          while (Date.now() < end && !child.exited() && !signal.aborted) {
            if (await tcpAccepts(port)) return child;
            await new Promise((r) => setTimeout(r, 100));
          }
          await child.stop(3_000);
          throw new Error(`nats-server did not accept connections on port ${port} (see ${child.logFile})`);
        },
      });
      return plan.url;
    } catch (err) {
      this.component({ name: 'nats', state: 'degraded', reason: `${(err as Error).message}: queue triggers report NoBroker` });
      return undefined;
    }
  }

  /**
   * Redis for the routers' shared tables: one that already answers, else a redis-server child
   * of ours (no persistence: the tables rebuild themselves), else Degraded.
   */
  private async ensureRedis(redisUrl: string): Promise<boolean> {
    const { hostname, port: p, username, password } = new URL(redisUrl);
    const port = Number(p || 6379);
    const auth = password ? { username: decodeURIComponent(username) || undefined, password: decodeURIComponent(password) } : undefined;
    // Status lines and platform.json show the URL without its password.
    const shownUrl = urlWithoutPassword(redisUrl);
    if (await redisAnswers(hostname, port, 1_000, auth)) {
      this.component({ name: 'redis', state: 'ready', url: shownUrl });
      return true;
    }
    const redisBin = findBinary('redis-server');
    const local = hostname === '127.0.0.1' || hostname === 'localhost';
    if (!redisBin || !local) {
      const why = redisBin ? `no Redis answers at ${shownUrl}` : 'redis-server is not installed (apt-get install redis-server)';
      this.component({ name: 'redis', state: 'degraded', reason: `${why}: the router replicas keep separate tables` });
      return false;
    }
    const dir = join(this.dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    const spec: ChildSpec = {
      name: 'redis',
      command: redisBin,
      args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      logDir: this.logDir,
    };
    const why = `the router replicas keep separate tables`;
    try {
      await this.run({
        name: 'redis',
        component: (c) => ({ name: 'redis', state: 'ready', url: shownUrl, pid: c.pid }),
        // Ready once it answers PING (redis-server prints no `listening http://` line).
        start: async (signal) => {
          const child = await startChild(spec);
          const end = Date.now() + 15_000;
          while (Date.now() < end && !child.exited() && !signal.aborted) {
            if (await redisAnswers(hostname, port, 1_000, auth)) return child;
            await new Promise((r) => setTimeout(r, 200));
          }
          await child.stop(3_000);
          throw new Error(`redis-server did not answer on port ${port} (see ${child.logFile})`);
        },
      });
      return true;
    } catch (err) {
      this.component({ name: 'redis', state: 'degraded', reason: `${(err as Error).message}: ${why}` });
      return false;
    }
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
      const waitSeconds = 120;
      const end = Date.now() + waitSeconds * 1000;
      let rc: RegistryCluster | undefined;
      let apiAnswers = false;
      while (Date.now() < end) {
        rc = (await this.store!.get('RegistryCluster', namespace, name)) as RegistryCluster | undefined;
        // A second `orrery up` finds the last run's status (its endpoint on a port now closed)
        // before the operator has written this run's: the endpoint counts once it answers.
        apiAnswers = !!rc?.status?.endpoint && (await answers(`${rc.status.endpoint}/readyz`));
        if (apiAnswers && rc?.status?.leader) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      if (!rc?.status?.endpoint || !rc.status.leader || !apiAnswers) {
        // What each member said, so the Degraded line tells what to look at (the operator's log has the rest).
        throw new Error(`${registryWaitSummary(rc, waitSeconds, apiAnswers)}; see ${join(this.logDir, 'operator.log')}`);
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
      const body = (await (await fetch(`${op.url}/v1/workers`, { headers: { authorization: `Bearer ${this.storeToken()}` }, signal: AbortSignal.timeout(3_000) })).json()) as { pids?: number[] };
      return body.pids ?? [];
    } catch {
      return [];
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    // No restart from now on: pending ones are dropped, one that is starting is aborted and awaited.
    for (const t of this.restartTimers) clearTimeout(t);
    this.restartTimers.clear();
    this.abort.abort();
    await Promise.allSettled([...this.restarting]);
    const workers = await this.workerPids();
    await this.store?.close().catch(() => {});
    // Reverse start order: traffic stops first, the registry and etcd last.
    const byName = (prefix: string) => this.children.filter((c) => c.name === prefix || c.name.startsWith(`${prefix}-`));
    for (const group of [byName('console'), byName('router'), byName('statesvc'), byName('operator'), byName('nats'), byName('registry'), byName('etcd'), byName('redis')]) {
      if (group.length === 0) continue;
      // Workers the operator started while the traffic stopped are listed too (a killed operator's
      // workers also exit on their own: ORRERY_EXIT_WITH_PARENT).
      if (group[0]!.name === 'operator') workers.push(...(await this.workerPids()).filter((p) => !workers.includes(p)));
      this.say(`  … stopping ${group.map((c) => c.name).join(', ')}`);
      this.log.info('stopping', { names: group.map((c) => c.name) });
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
    this.log.info('stopped: no process left running');
    if (this.logFd !== undefined) closeSync(this.logFd);
    this.logFd = undefined;
  }
}

/** True when `url` answers 200 within a second. */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function tcpAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

import { join } from 'node:path';
import { mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import type { Revision, StateCredentials } from '@orrery/spec';
import { postJson } from '@orrery/control-http';
import type { LocalRuntime } from './local-runtime-for-image.ts';
import { WorkerIsolation } from './worker-isolation.ts';
import { WorkerProcess } from './worker-process.ts';
import type { WorkerStartSlots } from './worker-start-slots.ts';
import { localSecretHint, localSecretLookup } from '../../env/local-secret-lookup.ts';
import { MissingSecretError, resolveTemplateEnv, type SecretLookup } from '../../env/template-env.ts';
import { type PoolPackages, packageSource } from '../../pool-executor/package-source.ts';
import { type PoolSpecializer, type Specialization, SpecializeError } from '../../pool-executor/specialization.ts';
import { specializeRequest } from '../../pool-executor/specialize-request.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';

export interface LocalPoolExecutorOptions {
  runtimeCommand: { command: string; args: string[] };
  dataDir: string;
  registryUrls: string[];
  /** Function-agnostic statesvc URL given to every generic worker (the token comes at specialize). */
  stateUrl?: string;
  /** Warm workers wanted for an Environment (`poolSize`). */
  poolSizeOf: (namespace: string, environment: string) => Promise<number>;
  /** Specialized workers without traffic this long are stopped. */
  idleTimeoutMs: number;
  /** Specialized workers changed: republish endpoints. */
  onChange: () => void;
  /**
   * Revision `key` (`ns/name`) may be short of the scale last decided for it: its first worker
   * came up through a cold request (scale() starts more only once one serves), or a worker exited
   * on its own. The caller reconciles it now — the autoscaler's decision did not change, so
   * nothing else would before the next resync.
   */
  reconcileNow?: (key: string) => void;
  /** The revision's registration credential, sent in the specialize body (none: workers cannot register). */
  registrationCredential?: RegistrationCredentials;
  /** Where `valueFrom.secretKeyRef` values come from (default: `<dataDir>/secrets/`). */
  secretLookup?: SecretLookup;
  /** Per-worker uids and private work dirs (default: none, work dirs under the data dir). */
  isolation?: WorkerIsolation;
  /** Names passed to workers from the operator's environment besides the allow-list. */
  envPassthrough?: readonly string[];
  /**
   * The runtime an Environment's generic workers run, from its image (local-runtime-for-image.ts);
   * absent: every pool worker runs `runtimeCommand`.
   */
  runtimeFor?: (namespace: string, environment: string) => Promise<LocalRuntime>;
  /**
   * Package builds (docs/packages.md): a revision with a package is specialized with its built
   * folder (the same one deploy workers get, readable by every worker uid), and only once built.
   */
  packages?: PoolPackages;
  /** How many workers (these and the deploy workers) start at once; absent: no limit. */
  startSlots?: WorkerStartSlots;
  log?: (msg: string) => void;
}

interface Specialized {
  worker: WorkerProcess;
  rev: { namespace: string; function: string; revision: string };
  lastUsedMs: number;
}

const READY_WAIT_MS = 30_000;
const REFILL_DELAY_MS = 50;
/** The specialized revision's reconcile waits this long (see doSpecialize). */
const RECONCILE_AFTER_SPECIALIZE_MS = 30;
/** Between unpublishing a specialized worker and its SIGTERM (routers poll the endpoints file). */
const UNPUBLISH_DELAY_MS = 500;

/**
 * Fission's poolmgr on the local backend: per Environment, `poolSize` warm generic
 * `orrery-runtime --mode pool` workers. A cold revision takes one, which loads the code on
 * `POST /v1/specialize` (state token in the body, §5 of the Fission seed); the pool refills in the
 * background; concurrent cold requests for one revision share one specialization; specialized
 * workers idle past the timeout are stopped.
 */
export class LocalPoolExecutor implements PoolSpecializer {
  private readonly pools = new Map<string, WorkerProcess[]>();
  /** The program each pool's workers run (a changed image replaces the pool's generic workers). */
  private readonly poolRuntimes = new Map<string, { command: string; args: string[] }>();
  /** Pools whose Environment's image has no local runtime: why none of its workers start. */
  private readonly runtimeErrors = new Map<string, { reason: string; message: string }>();
  private readonly specialized = new Map<string, Specialized[]>();
  private readonly pending = new Map<string, Promise<Specialization>>();
  /** Specializations the KPA started per revision and that have not finished yet. */
  private readonly scalingUp = new Map<string, number>();
  /**
   * Each generic worker's single-use specialize nonce (the worker got only its SHA-256). Held
   * here alone, and dropped once sent: no worker can specialize another.
   */
  private readonly nonces = new WeakMap<WorkerProcess, string>();
  private reaper?: NodeJS.Timeout;
  private seq = 0;
  private stopped = false;
  /** Count of specialize calls made to workers (one per cold revision, however many requests). */
  specializations = 0;

  private readonly isolation: WorkerIsolation;

  constructor(private readonly o: LocalPoolExecutorOptions) {
    this.isolation = o.isolation ?? WorkerIsolation.create({ dataDir: o.dataDir, mode: 'off' });
  }

  start(): void {
    this.reaper = setInterval(() => void this.reapIdle(), Math.max(250, Math.min(10_000, this.o.idleTimeoutMs / 4)));
    this.reaper.unref();
  }

  /** Keep an Environment's pool at its size (starts what is missing; idempotent). */
  async ensurePool(namespace: string, environment: string): Promise<void> {
    const key = `${namespace}/${environment}`;
    const size = await this.o.poolSizeOf(namespace, environment);
    const runtime: LocalRuntime = this.o.runtimeFor ? await this.o.runtimeFor(namespace, environment) : { ok: true, runtime: 'node', command: this.o.runtimeCommand };
    if (this.stopped) return; // shutting down: start nothing
    let list = this.pools.get(key) ?? [];
    if (!runtime.ok) {
      this.runtimeErrors.set(key, { reason: runtime.reason, message: runtime.message });
      this.pools.delete(key);
      await Promise.all(list.map((w) => w.stop()));
      return;
    }
    this.runtimeErrors.delete(key);
    const before = this.poolRuntimes.get(key);
    if (before && (before.command !== runtime.command.command || before.args.join(' ') !== runtime.command.args.join(' '))) {
      // The Environment's image changed runtime: its warm workers run the old one.
      this.o.log?.(`pool ${key}: the Environment's runtime changed; replacing its ${list.length} generic worker(s)`);
      void Promise.all(list.map((w) => w.stop()));
      list = [];
    }
    this.poolRuntimes.set(key, runtime.command);
    this.pools.set(key, list);
    while (list.length < size) {
      const nonce = mintSpecializeNonce();
      const slots = this.o.startSlots ? { slots: this.o.startSlots, peers: () => this.pools.get(key) ?? [] } : undefined;
      const w = new WorkerProcess(this.spec(namespace, environment, specializeVerifier(nonce), runtime.command), () => this.poolWorkerChanged(key), slots);
      this.nonces.set(w, nonce);
      list.push(w);
      w.start();
    }
  }

  /** Address of a worker serving the revision, specializing a warm one if none does. */
  async specialize(rev: Revision, credentials?: StateCredentials): Promise<Specialization> {
    const key = `${rev.metadata.namespace}/${rev.metadata.name}`;
    const live = this.specialized.get(key)?.find((s) => s.worker.state === 'ready' && s.worker.address);
    if (live) {
      live.lastUsedMs = Date.now();
      return { address: live.worker.address! };
    }
    let p = this.pending.get(key);
    if (!p) {
      p = this.doSpecialize(key, rev, credentials).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  /**
   * The KPA's desired scale for a pooled revision: specialize more warm workers while desired
   * exceeds those serving it (or being specialized for it), stop the newest extras when it falls.
   * At zero nothing happens — a cold request's specialization brings the first worker — and the
   * last worker goes only through the idle reaper, as before.
   */
  scale(rev: Revision, desired: number, credentials?: StateCredentials): void {
    if (this.stopped) return;
    const key = `${rev.metadata.namespace}/${rev.metadata.name}`;
    const serving = this.specialized.get(key) ?? [];
    if (!serving.length || desired < 1) return;
    const starting = this.scalingUp.get(key) ?? 0;
    for (let i = serving.length + starting; i < desired; i++) {
      this.scalingUp.set(key, (this.scalingUp.get(key) ?? 0) + 1);
      void this.doSpecialize(key, rev, credentials)
        .catch((err: unknown) => this.o.log?.(`scaling ${key} up: ${(err as Error).message}`))
        .finally(() => {
          const n = (this.scalingUp.get(key) ?? 1) - 1;
          if (n > 0) this.scalingUp.set(key, n);
          else this.scalingUp.delete(key);
        });
    }
    if (desired < serving.length && !starting) {
      const extra = serving.splice(desired);
      this.o.onChange(); // unpublish first; stop once routers had time to drop them
      this.o.log?.(`scaling ${key} down to ${desired} specialized worker(s)`);
      setTimeout(() => void Promise.all(extra.map((s) => s.worker.stop())), UNPUBLISH_DELAY_MS).unref();
    }
  }

  /** Specialized workers of a revision that are ready (the KPA's `ready`). */
  readySpecialized(key: string): number {
    return (this.specialized.get(key) ?? []).filter((s) => s.worker.state === 'ready').length;
  }

  /** Traffic seen for a revision (router stats): postpones reaping. */
  touch(key: string): void {
    for (const s of this.specialized.get(key) ?? []) s.lastUsedMs = Date.now();
  }

  /** The revision is gone or no longer routable: stop its specialized workers. */
  async release(key: string): Promise<void> {
    const list = this.specialized.get(key);
    if (!list) return;
    this.specialized.delete(key);
    this.o.onChange();
    await Promise.all(list.map((s) => s.worker.stop()));
  }

  endpoints(): Array<{ namespace: string; function: string; revision: string; address: string; ready: boolean }> {
    const out = [];
    for (const list of this.specialized.values()) {
      for (const s of list) if (s.worker.address) out.push({ ...s.rev, address: s.worker.address, ready: s.worker.state === 'ready' });
    }
    return out;
  }

  readyPoolWorkers(namespace: string, environment: string): number {
    return (this.pools.get(`${namespace}/${environment}`) ?? []).filter((w) => w.state === 'ready').length;
  }

  /** Ready generic workers per `namespace/environment`. */
  warmCounts(): Record<string, number> {
    return Object.fromEntries([...this.pools].map(([k, l]) => [k, l.filter((w) => w.state === 'ready').length]));
  }

  specializedCount(key: string): number {
    return this.specialized.get(key)?.length ?? 0;
  }

  workerPids(): number[] {
    return [...[...this.pools.values()].flat(), ...[...this.specialized.values()].flat().map((s) => s.worker)].map((w) => w.pid).filter((p): p is number => p !== undefined);
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    const all = [...[...this.pools.values()].flat(), ...[...this.specialized.values()].flat().map((s) => s.worker)];
    this.pools.clear();
    this.specialized.clear();
    await Promise.all(all.map((w) => w.stop()));
  }

  private async doSpecialize(key: string, rev: Revision, credentials?: StateCredentials): Promise<Specialization> {
    const t = rev.spec.template;
    const env = t.environment;
    const ns = rev.metadata.namespace;
    const poolKey = `${ns}/${env}`;
    // The package's build, then secrets: a revision that cannot load must not cost a warm worker.
    const pkg = packageSource(rev, this.o.packages);
    const templateEnv = await resolveTemplateEnv(ns, t.env, this.o.secretLookup ?? localSecretLookup(this.o.dataDir), localSecretHint(ns)).catch((err: unknown) => {
      if (err instanceof MissingSecretError) throw new SpecializeError(422, 'secret_not_found', err.message);
      throw err;
    });
    // A ready warm worker is taken at once; only an empty or unknown pool waits for (re)filling.
    let worker = this.takeReady(poolKey);
    if (!worker) {
      await this.ensurePool(ns, env);
      const problem = this.runtimeErrors.get(poolKey);
      if (problem) throw new SpecializeError(422, 'runtime_unavailable', problem.message);
      worker = await this.takeWarm(poolKey);
    }
    // Refill just after this specialization: spawning a node process now would take CPU from
    // the cold request the taken worker is about to serve (on a small machine, tens of ms).
    setTimeout(() => void this.ensurePool(ns, env).catch((err: unknown) => this.o.log?.(`pool refill ${poolKey}: ${(err as Error).message}`)), REFILL_DELAY_MS).unref();
    const body = specializeRequest(rev, pkg ?? (t.source.inline !== undefined ? { inline: t.source.inline } : { url: t.source.url }), credentials, this.o.registrationCredential?.(rev), templateEnv);
    this.specializations++;
    const nonce = this.nonces.get(worker);
    this.nonces.delete(worker); // single use, whatever the answer
    const sent = performance.now();
    const res = await postJson(`http://${worker.address}/v1/specialize`, body, { timeoutMs: 60_000, headers: nonce ? { authorization: `Bearer ${nonce}` } : {} }).catch((err: unknown) => {
      void worker.stop();
      throw new SpecializeError(502, 'specialize_failed', `worker ${worker.address} did not answer specialize: ${(err as Error).message}`);
    });
    const answer = res.body as { address?: string; error?: string; code?: string; loadMs?: number };
    if (res.status !== 200) {
      void worker.stop(); // a failed load may leave module state behind: never reuse it
      throw new SpecializeError(res.status === 422 ? 422 : 502, answer.code ?? 'specialize_failed', answer.error ?? `specialize answered ${res.status}`);
    }
    if (this.stopped) {
      // stopAll ran while this specialization was in flight: the worker left the pool before and
      // never reached `specialized`, so nothing else would stop it (it would outlive the operator).
      await worker.stop();
      throw new SpecializeError(503, 'shutting_down', 'the operator is shutting down');
    }
    const s: Specialized = { worker, rev: { namespace: ns, function: rev.spec.function, revision: rev.metadata.name }, lastUsedMs: Date.now() };
    const list = this.specialized.get(key) ?? [];
    list.push(s);
    this.specialized.set(key, list);
    this.o.onChange();
    // After the answer, and after the cold request it serves: the revision's reconcile runs its
    // store queries on this event loop (the embedded PGlite, ~0.5 ms before the answer when it ran
    // first) and publishes the endpoints file, which every router then reads — while the router
    // is proxying the cold request to the worker. 30 ms later (interleaved bench/coldstart, pool
    // p50 9.7–10.9 ms at once → 8.8–9.5 ms deferred); other routers still reach the worker at once
    // through their own specialize call, which answers the live worker.
    if (list.length === 1) {
      setTimeout(() => {
        if (!this.stopped) this.o.reconcileNow?.(key);
      }, RECONCILE_AFTER_SPECIALIZE_MS).unref();
    }
    return { address: worker.address!, timing: { workerMs: Math.round(performance.now() - sent), loadMs: answer.loadMs } };
  }

  /** Removes a ready generic worker from its pool, if one is there. */
  private takeReady(poolKey: string): WorkerProcess | undefined {
    const list = this.pools.get(poolKey) ?? [];
    const i = list.findIndex((w) => w.state === 'ready' && w.address);
    if (i < 0) return undefined;
    const [w] = list.splice(i, 1);
    // From now on a crash must not bring it back as a generic worker under this revision.
    w!.onExit = () => this.dropSpecialized(w!);
    return w;
  }

  /** Removes a ready generic worker from its pool (waits for one that is still starting). */
  private async takeWarm(poolKey: string): Promise<WorkerProcess> {
    const end = Date.now() + READY_WAIT_MS;
    for (;;) {
      const w = this.takeReady(poolKey);
      if (w) return w;
      if (Date.now() > end) throw new SpecializeError(503, 'pool_empty', `no warm worker in pool ${poolKey} became ready within ${READY_WAIT_MS / 1000}s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private dropSpecialized(w: WorkerProcess): void {
    for (const [key, list] of this.specialized) {
      const i = list.findIndex((s) => s.worker === w);
      if (i >= 0) {
        list.splice(i, 1);
        if (!list.length) this.specialized.delete(key);
        void w.stop();
        this.o.onChange();
        if (!this.stopped) this.o.reconcileNow?.(key);
      }
    }
  }

  private poolWorkerChanged(_key: string): void {
    // Generic workers restart themselves when they crash; nothing to publish.
  }

  private async reapIdle(): Promise<void> {
    const now = Date.now();
    for (const [key, list] of this.specialized) {
      const idle = list.filter((s) => now - s.lastUsedMs > this.o.idleTimeoutMs);
      if (!idle.length) continue;
      const keep = list.filter((s) => !idle.includes(s));
      if (keep.length) this.specialized.set(key, keep);
      else this.specialized.delete(key);
      this.o.onChange();
      this.o.log?.(`reaping ${idle.length} idle specialized worker(s) of ${key}`);
      await Promise.all(idle.map((s) => s.worker.stop()));
    }
  }

  private spec(namespace: string, environment: string, verifier: string, runtime: { command: string; args: string[] }) {
    const id = `pool-${environment}-${++this.seq}`;
    // A generic worker does not know its function yet: as root it gets a uid of its own, so two
    // functions specialized from one pool never share one.
    const workDir = this.isolation.workDir('pool', namespace, id);
    const who = this.isolation.forPoolWorker();
    this.isolation.prepareWorkDir(workDir, who);
    const args = [...runtime.args, '--mode', 'pool', '--port', '0', '--namespace', namespace, '--instance-id', `${id}-${process.pid}`, '--work-dir', workDir];
    if (this.o.registryUrls.length) args.push('--registry-url', this.o.registryUrls.join(','));
    // The verifier of the worker's own nonce (a hash: knowing it specializes nothing).
    const env: Record<string, string> = { ORRERY_SPECIALIZE_VERIFIER: verifier };
    if (this.o.stateUrl) env.ORRERY_STATE_URL = this.o.stateUrl;
    return {
      id,
      command: runtime.command,
      args,
      env,
      logFile: join(this.o.dataDir, 'logs', namespace, 'pool', `${id}.log`),
      drainTimeoutMs: 35_000,
      labels: { namespace, function: '', revision: '' },
      workDir,
      uid: who.uid,
      gid: who.gid,
      envPassthrough: this.o.envPassthrough,
      onGone: () => {
        void this.isolation.removeWorkDir(workDir);
        who.release?.();
      },
    };
  }
}

/**
 * Package builds on the local backend (docs/packages.md): for a Function whose template names
 * `source.package`, the archive uploaded under `<data-dir>/packages/archives/` (or fetched from
 * package.url) is built once per build key into `<data-dir>/packages/built/<key>/` by
 * @orrery/builder in this process's children (npm or pip), `status.build` follows the build, and
 * revisions start workers only once it succeeded (gate()).
 *
 * Content-addressed: concurrent Functions with the same archive and builder share one build; a
 * finished build is found on disk after a restart. A failed build is recorded beside the built
 * packages and not retried until the archive or the builder changes (delete the record to retry).
 * A missing archive is looked for again every few seconds while a Function waits for it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { BUILD_MARKER, LogTail, buildKey, buildPackage, type BuilderRuntime } from '@orrery/builder';
import type { BuildStatus, FunctionTemplate, OrreryFunction, Revision } from '@orrery/spec';
import { buildGate } from '../../package/build-gate.ts';
import { type BuildIdentity, archiveMissingBuild, buildingBuild, finishedBuild, sameBuild } from '../../package/build-status.ts';
import { type BuildStatusStore, updateBuildStatus } from '../../package/build-status-store.ts';
import type { ReadyOverride } from '../../revision/revision-backend.ts';
import type { LocalRuntime } from './local-runtime-for-image.ts';
import { packagePaths } from './local-package-paths.ts';

export interface LocalPackageBuildsOptions {
  dataDir: string;
  /**
   * Where built packages go when not `<data-dir>/packages/built` (worker isolation: a folder under
   * the workers' root, 0711, so workers of other uids can enter a package whose key they are given
   * but cannot list the others).
   */
  builtRoot?: string;
  status: BuildStatusStore;
  /** The runtime an Environment's image runs locally: which builder a package needs. */
  runtimeOf: (namespace: string, environment: string) => Promise<LocalRuntime>;
  /** The python3 that runs Python workers: pip must install for the same interpreter. */
  python?: string;
  /** A build's longest run (default 10 min). */
  timeoutMs?: number;
  /** Largest archive fetched from package.url. */
  maxArchiveBytes: number;
  /** A Function's build state changed: its reconciler and its revisions' look again. */
  changed: (namespace: string, fn: string) => void;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  now?: () => Date;
  fetch?: typeof fetch;
}

type Plan = { id: BuildIdentity; runtime: BuilderRuntime; main?: string; url?: string } | { refused: ReadyOverride };

const ARCHIVE_RECHECK_MS = 3_000;

export class LocalPackageBuilds {
  private readonly paths: ReturnType<typeof packagePaths>;
  /** Build key → its status as last known (every Function with that key shows this one). */
  private readonly byKey = new Map<string, BuildStatus>();
  /** Build key → the module the built package loads. */
  private readonly mains = new Map<string, string>();
  /** Build key → the build running now. */
  private readonly running = new Map<string, Promise<void>>();
  /** Build key → the Functions (namespace/name) that wait on it. */
  private readonly waiters = new Map<string, Set<string>>();
  /** `namespace/environment/sha256` → its plan's key (so gate() can answer from memory). */
  private readonly planned = new Map<string, string>();
  private readonly refused = new Map<string, ReadyOverride>();
  private readonly kicked = new Set<string>();
  /** namespace/name → the Function's current template, as its last reconcile saw it. */
  private readonly templates = new Map<string, FunctionTemplate>();
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  private readonly log: NonNullable<LocalPackageBuildsOptions['log']>;
  private readonly now: () => Date;
  /** How many builds this process ran (tests: a second Function with the same archive builds nothing). */
  buildsStarted = 0;
  private stopped = false;

  constructor(private readonly o: LocalPackageBuildsOptions) {
    this.paths = packagePaths(o.dataDir, o.builtRoot);
    this.log = o.log ?? (() => {});
    this.now = o.now ?? (() => new Date());
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.rechecks.values()) clearTimeout(t);
    this.rechecks.clear();
  }

  /** Every running build finished (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }

  /**
   * From the Function's reconcile: brings `status.build` in line with the current template's
   * package, starting its build when nobody has.
   */
  async observe(fn: OrreryFunction): Promise<void> {
    const { namespace, name } = fn.metadata;
    const fnKey = `${namespace}/${name}`;
    for (const set of this.waiters.values()) set.delete(fnKey);
    const t = fn.spec.template;
    this.templates.set(fnKey, t);
    const build = t.source.package ? await this.buildOf(namespace, t, fnKey) : undefined;
    // The copy handed in (the operator's cache) already says so: no fresh read. Were the store
    // ahead of it, our own write's watch event is on its way and reconciles this Function again.
    if (sameBuild(fn.status?.build, build)) return;
    await updateBuildStatus(this.o.status, namespace, name, (stored) => (sameBuild(stored.status?.build, build) ? 'unchanged' : build));
  }

  /** Why a revision may not run yet (undefined: no package, or it is built). From memory only. */
  gate(rev: Revision): ReadyOverride | undefined {
    return this.gateOf(rev.metadata.namespace, rev.spec.function, rev.spec.template);
  }

  /** The gate of a Function's current template (what its Ready says), by namespace/name. */
  gateOfFunction(key: string): ReadyOverride | undefined {
    const t = this.templates.get(key);
    const [namespace, name] = key.split('/') as [string, string];
    return t && this.gateOf(namespace, name, t);
  }

  /** Forgets a deleted Function. */
  forget(key: string): void {
    this.templates.delete(key);
    for (const set of this.waiters.values()) set.delete(key);
  }

  /** The gate of a template (namespace, its Function's name for the kick). */
  gateOf(namespace: string, fn: string, t: FunctionTemplate): ReadyOverride | undefined {
    const pkg = t.source.package;
    if (!pkg) return undefined;
    const planKey = `${namespace}/${t.environment}/${pkg.sha256}`;
    const refused = this.refused.get(planKey);
    if (refused) return refused;
    const key = this.planned.get(planKey);
    const status = key ? this.byKey.get(key) : undefined;
    if (!status && !this.kicked.has(planKey)) {
      // Nobody looked at this package yet (a restart, an old revision): its Function's reconcile will.
      this.kicked.add(planKey);
      this.o.changed(namespace, fn);
    }
    return buildGate(status);
  }

  /** The built package a revision's workers load, once built (deploy workers' --source-dir, a pool worker's specialize). */
  builtPackage(rev: Revision): { dir: string; main: string } | undefined {
    const t = rev.spec.template;
    const pkg = t.source.package;
    if (!pkg) return undefined;
    const key = this.planned.get(`${rev.metadata.namespace}/${t.environment}/${pkg.sha256}`);
    if (!key || this.byKey.get(key)?.phase !== 'Succeeded') return undefined;
    return { dir: this.paths.builtDir(key), main: this.mains.get(key)! };
  }

  private async plan(namespace: string, t: FunctionTemplate): Promise<Plan> {
    const pkg = t.source.package!;
    const runtime = await this.o.runtimeOf(namespace, t.environment);
    if (!runtime.ok) return { refused: { status: 'False', reason: runtime.reason, message: runtime.message } };
    // The builder is part of the key: another node or python builds every package again.
    const builder = runtime.runtime === 'node' ? `node npm ${process.version}` : `python pip ${this.o.python ?? 'python3'}`;
    return { id: { sha256: pkg.sha256, key: buildKey(pkg.sha256, builder), builder }, runtime: runtime.runtime, main: pkg.main, url: pkg.url };
  }

  private async buildOf(namespace: string, t: FunctionTemplate, fnKey: string): Promise<BuildStatus | undefined> {
    const planKey = `${namespace}/${t.environment}/${t.source.package!.sha256}`;
    const plan = await this.plan(namespace, t);
    if ('refused' in plan) {
      this.refused.set(planKey, plan.refused);
      return undefined;
    }
    this.refused.delete(planKey);
    this.planned.set(planKey, plan.id.key);
    const { key } = plan.id;
    let waiting = this.waiters.get(key);
    if (!waiting) this.waiters.set(key, (waiting = new Set()));
    waiting.add(fnKey);
    const known = this.byKey.get(key);
    if (known && known.reason !== 'ArchiveMissing') return known;
    const found = await this.fromDisk(plan.id);
    if (found) return this.record(key, found);
    return this.record(key, await this.start(plan));
  }

  /** A build finished earlier (this process or another run): its marker or its failure record. */
  private async fromDisk(id: BuildIdentity): Promise<BuildStatus | undefined> {
    try {
      const done = JSON.parse(await readFile(`${this.paths.builtDir(id.key)}/${BUILD_MARKER}`, 'utf8')) as { dependencies: number; sizeBytes: number; main: string };
      this.mains.set(id.key, done.main);
      return { ...id, phase: 'Succeeded', reason: 'Built', message: `built with ${done.dependencies} dependencies; loads ${done.main}`, dependencies: done.dependencies, sizeBytes: done.sizeBytes };
    } catch {
      // not built
    }
    try {
      return JSON.parse(await readFile(this.paths.failedRecord(id.key), 'utf8')) as BuildStatus;
    } catch {
      return undefined;
    }
  }

  private record(key: string, status: BuildStatus): BuildStatus {
    const before = this.byKey.get(key);
    this.byKey.set(key, status);
    if (!sameBuild(before, status)) {
      for (const planKey of this.kicked) if (this.planned.get(planKey) === key) this.kicked.delete(planKey);
      for (const fnKey of this.waiters.get(key) ?? []) {
        const [ns, name] = fnKey.split('/') as [string, string];
        this.o.changed(ns, name);
      }
    }
    return status;
  }

  /** Starts the build (or finds the archive missing); resolves to the status to show now. */
  private async start(plan: Extract<Plan, { id: BuildIdentity }>): Promise<BuildStatus> {
    const { id } = plan;
    const archive = await this.archive(plan);
    if (typeof archive === 'string') {
      this.recheckLater(id.key);
      return archiveMissingBuild(id, archive);
    }
    if (!this.running.has(id.key)) {
      const startedAt = this.now();
      this.buildsStarted += 1;
      this.log(`building package ${id.sha256.slice(0, 12)} (${id.builder})`, { key: id.key });
      const run = this.run(plan, archive, startedAt)
        .catch((err: unknown) => this.log(`package ${id.sha256.slice(0, 12)}: recording the build failed: ${(err as Error).message}`, { key: id.key }))
        .finally(() => this.running.delete(id.key));
      this.running.set(id.key, run);
      return buildingBuild(id, startedAt);
    }
    return this.byKey.get(id.key) ?? buildingBuild(id, this.now());
  }

  private async run(plan: Extract<Plan, { id: BuildIdentity }>, archive: Buffer, startedAt: Date): Promise<void> {
    const { id } = plan;
    const log = new LogTail();
    let status: BuildStatus;
    try {
      await mkdir(this.paths.built, { recursive: true, mode: this.o.builtRoot ? 0o711 : 0o755 });
      const outcome = await buildPackage({
        archive,
        sha256: id.sha256,
        runtime: plan.runtime,
        outDir: this.paths.builtDir(id.key),
        ...(plan.main ? { main: plan.main } : {}),
        ...(this.o.timeoutMs ? { timeoutMs: this.o.timeoutMs } : {}),
        onLog: (chunk) => log.push(chunk),
        tools: { python: this.o.python },
      });
      if (outcome.ok) this.mains.set(id.key, outcome.main);
      status = finishedBuild(id, outcome, log.toString(), startedAt, this.now());
    } catch (err) {
      status = finishedBuild(id, { ok: false, reason: 'DependenciesFailed', message: `the build could not run: ${(err as Error).message}` }, log.toString(), startedAt, this.now());
    }
    if (status.phase === 'Failed') {
      // Not retried until the archive or builder changes: the same inputs fail the same way.
      await mkdir(this.paths.built, { recursive: true });
      const tmp = `${this.paths.failedRecord(id.key)}.tmp`;
      await writeFile(tmp, JSON.stringify(status));
      await rename(tmp, this.paths.failedRecord(id.key));
    }
    this.log(`package ${id.sha256.slice(0, 12)}: ${status.phase} (${status.reason})`, { key: id.key });
    if (!this.stopped) this.record(id.key, status);
  }

  /** The archive's bytes, or why there are none yet. */
  private async archive(plan: Extract<Plan, { id: BuildIdentity }>): Promise<Buffer | string> {
    const file = this.paths.archive(plan.id.sha256);
    if (existsSync(file)) return readFile(file);
    if (!plan.url) return `no archive ${plan.id.sha256.slice(0, 12)}… uploaded yet: orrery deploy --code DIR uploads it (or set package.url)`;
    const fetched = await this.download(plan.url, plan.id.sha256);
    if (typeof fetched === 'string') return fetched;
    await mkdir(this.paths.archives, { recursive: true });
    await writeFile(`${file}.tmp-${process.pid}`, fetched);
    await rename(`${file}.tmp-${process.pid}`, file);
    return fetched;
  }

  private async download(url: string, sha256: string): Promise<Buffer | string> {
    const shown = (() => {
      try {
        const u = new URL(url);
        return `${u.origin}${u.pathname}`; // never the query: presigned URLs carry credentials there
      } catch {
        return 'package.url';
      }
    })();
    try {
      const res = await (this.o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(60_000) });
      if (!res.ok) return `fetching ${shown} answered HTTP ${res.status}`;
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > this.o.maxArchiveBytes) return `${shown} is ${declared} bytes, over the ${this.o.maxArchiveBytes}-byte limit`;
      const bytes = Buffer.from(await res.arrayBuffer());
      if (bytes.length > this.o.maxArchiveBytes) return `${shown} is over the ${this.o.maxArchiveBytes}-byte limit`;
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== sha256) return `${shown} has sha256 ${actual}, not ${sha256}`;
      return bytes;
    } catch (err) {
      return `cannot fetch ${shown}: ${(err as Error).message}`;
    }
  }

  private recheckLater(key: string): void {
    if (this.stopped || this.rechecks.has(key)) return;
    const timer = setTimeout(() => {
      this.rechecks.delete(key);
      this.byKey.delete(key);
      for (const fnKey of this.waiters.get(key) ?? []) {
        const [ns, name] = fnKey.split('/') as [string, string];
        this.o.changed(ns, name);
      }
    }, ARCHIVE_RECHECK_MS);
    timer.unref();
    this.rechecks.set(key, timer);
  }
}

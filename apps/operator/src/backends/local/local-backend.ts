import { existsSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REGISTRY_CREDENTIAL_ENV, type Revision, type StateCredentials } from '@orrery/spec';
import { objectKey } from '../../queue/object-key.ts';
import { revisionWorkerArgs } from '../../revision/revision-worker-args.ts';
import type { RevisionWorkers } from '../../reconcile/revision-workers.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';
import { localSecretHint, localSecretLookup } from '../../env/local-secret-lookup.ts';
import { MissingSecretError, resolveTemplateEnv, type SecretLookup } from '../../env/template-env.ts';
import type { LocalRuntime } from './local-runtime-for-image.ts';
import { WorkerIsolation } from './worker-isolation.ts';
import type { WorkerStartSlots } from './worker-start-slots.ts';
import { WorkerProcess } from './worker-process.ts';

export interface LocalBackendOptions {
  /** Node binary + script that starts one worker (the orrery-runtime bin). */
  runtimeCommand: { command: string; args: string[] };
  dataDir: string;
  registryUrls: string[];
  /** Also publish endpoints as a YAML file the router can watch (works without a registry). */
  endpointsFile?: string;
  drainTimeoutMs?: number;
  /** Between unpublishing a worker and its SIGTERM (default 500 ms; routers poll the file every 200 ms). */
  unpublishDelayMs?: number;
  onChange?: (revisionKey: string) => void;
  /** The revision's registration credential (none: workers cannot register under orrery.functions.). */
  registrationCredential?: RegistrationCredentials;
  /** Where `valueFrom.secretKeyRef` values come from (default: `<dataDir>/secrets/`). */
  secretLookup?: SecretLookup;
  /** Per-function uids and private work dirs (default: none, work dirs under the data dir). */
  isolation?: WorkerIsolation;
  /** Names passed to workers from the operator's environment besides the allow-list. */
  envPassthrough?: readonly string[];
  /** More endpoints to publish with the backend's own (the pool executor's specialized workers). */
  extraEndpoints?: () => Array<{ namespace: string; function: string; revision: string; address: string; ready: boolean }>;
  /**
   * The runtime a revision's workers run, from its Environment's image (local-runtime-for-image.ts);
   * absent: every worker runs `runtimeCommand`.
   */
  runtimeFor?: (rev: Revision) => Promise<LocalRuntime>;
  /** The built package a revision with source.package loads (docs/packages.md); undefined until built. */
  packageOf?: (rev: Revision) => { dir: string; main: string } | undefined;
  /** How many workers (these and the pool's) start at once; absent: no limit. */
  startSlots?: WorkerStartSlots;
}


/**
 * The local runtime backend: each worker is an `orrery-runtime` child process (or
 * `orrery-runtime-python`, as its Environment's image says) on a free loopback port, supervised
 * (restarted with backoff) and stopped with a drain.
 */
export class LocalBackend {
  private readonly workers = new Map<string, WorkerProcess[]>();
  private readonly desired = new Map<string, number>();
  private seq = 0;
  private stopped = false;
  private readonly leaving = new Set<WorkerProcess>();
  private endpointsTimer?: NodeJS.Timeout;
  /** The endpoints file's content as last written (a change of worker state often leaves it the same). */
  private endpointsWritten?: string;
  private readonly readyWaiters = new Map<string, Set<() => void>>();
  private readonly configErrors = new Map<string, string>();
  /** Revisions whose Environment's image has no local runtime: reported as the revision's failure. */
  private readonly runtimeErrors = new Map<string, { reason: string; message: string }>();
  private readonly secretLookup: SecretLookup;
  private readonly isolation: WorkerIsolation;

  constructor(private readonly opts: LocalBackendOptions) {
    this.secretLookup = opts.secretLookup ?? localSecretLookup(opts.dataDir);
    this.isolation = opts.isolation ?? WorkerIsolation.create({ dataDir: opts.dataDir, mode: 'off' });
  }

  /** Starts or stops workers of one revision until `desired` run. */
  async scale(rev: Revision, desired: number, credentials?: StateCredentials): Promise<void> {
    // A reconcile still running during shutdown must not start workers nobody will stop.
    if (this.stopped) return;
    const key = objectKey(rev.metadata.namespace, rev.metadata.name);
    this.desired.set(key, desired);
    const list = this.workers.get(key) ?? [];
    this.workers.set(key, list);
    if (list.length < desired) {
      // The Environment's image picks the program; one without a local runtime starts none.
      const runtime: LocalRuntime = this.opts.runtimeFor ? await this.opts.runtimeFor(rev) : { ok: true, runtime: 'node', command: this.opts.runtimeCommand };
      if (runtime.ok) this.runtimeErrors.delete(key);
      else this.runtimeErrors.set(key, { reason: runtime.reason, message: runtime.message });
      // Secrets are read when workers start (as the kubelet does): a missing one starts none.
      let env: Record<string, string> | undefined;
      try {
        env = await resolveTemplateEnv(rev.metadata.namespace, rev.spec.template.env, this.secretLookup, localSecretHint(rev.metadata.namespace));
        this.configErrors.delete(key);
      } catch (err) {
        if (!(err instanceof MissingSecretError)) throw err;
        this.configErrors.set(key, err.message);
      }
      // A package not built (yet) starts nothing; the revision's Ready says Building (its gate).
      const pkg = rev.spec.template.source.package ? this.opts.packageOf?.(rev) : undefined;
      const loadable = !rev.spec.template.source.package || pkg !== undefined;
      while (env && runtime.ok && loadable && list.length < desired && !this.stopped) {
        const slots = this.opts.startSlots ? { slots: this.opts.startSlots, peers: () => list } : undefined;
        const w = new WorkerProcess(this.workerSpec(rev, env, runtime.command, credentials, pkg), () => this.changed(key), slots);
        list.push(w);
        w.start();
      }
    }
    // Scale down newest first; each one drains before it goes.
    const extra = list.splice(desired);
    for (const w of extra) this.leaving.add(w);
    this.publishEndpoints();
    // Let routers reading the endpoints file (polled) drop these workers before they stop
    // accepting connections (Knative's preStop delay); otherwise a request races the SIGTERM.
    if (extra.length && this.opts.endpointsFile) await new Promise((r) => setTimeout(r, this.opts.unpublishDelayMs ?? 500));
    await Promise.all(extra.map((w) => w.stop()));
    for (const w of extra) this.leaving.delete(w);
    if (desired === 0) {
      this.workers.delete(key);
      this.desired.delete(key);
      this.configErrors.delete(key);
      this.runtimeErrors.delete(key);
    }
    this.publishEndpoints();
  }

  observe(namespace: string, name: string): RevisionWorkers {
    const key = objectKey(namespace, name);
    const list = this.workers.get(key) ?? [];
    const crashing = list.find((w) => w.restarts >= 3 && w.state !== 'ready');
    return {
      desired: this.desired.get(key) ?? 0,
      actual: list.filter((w) => w.state !== 'stopped').length,
      ready: list.filter((w) => w.state === 'ready').length,
      restarts: list.reduce((n, w) => n + w.restarts, 0),
      crashLoop: crashing ? crashing.recentErrors().slice(-3).join(' | ') || `exited with code ${crashing.lastExit?.code}` : undefined,
      configError: this.configErrors.get(key),
      failed: this.runtimeErrors.get(key),
    };
  }

  /** Every ready worker as `{namespace, function, revision, address, ready}`. */
  endpoints(): Array<{ namespace: string; function: string; revision: string; address: string; ready: boolean }> {
    const out = [];
    for (const list of this.workers.values()) {
      for (const w of list) {
        if (w.address) out.push({ ...w.spec.labels, address: w.address, ready: w.state === 'ready' });
      }
    }
    if (this.opts.extraEndpoints) out.push(...this.opts.extraEndpoints());
    return out;
  }

  /** Every revision key with workers (running or wanted). */
  revisionKeys(): string[] {
    return [...this.workers.keys()];
  }

  workerPids(): number[] {
    return [...this.workers.values()].flat().map((w) => w.pid).filter((p): p is number => p !== undefined);
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    for (const waiters of this.readyWaiters.values()) for (const wake of [...waiters]) wake();
    // Include workers a scale-down has unpublished but not yet stopped.
    const all = [...[...this.workers.values()].flat(), ...this.leaving];
    this.workers.clear();
    this.desired.clear();
    await Promise.all(all.map((w) => w.stop()));
    clearTimeout(this.endpointsTimer);
    this.writeEndpointsFile();
  }

  /**
   * Addresses of the revision's ready workers, waiting up to `timeoutMs` for the first one (the
   * poke answer: a router admits a woken revision's first worker at once instead of finding it
   * on its next poll of the endpoints file). Empty when none became ready in time.
   */
  /** Spawn and listening times of the revision's first ready worker (performance.now()). */
  firstReadyTimes(key: string): { spawnedAt: number; listeningAt: number } | undefined {
    const w = (this.workers.get(key) ?? []).find((x) => x.state === 'ready');
    return w ? { spawnedAt: w.spawnedAt, listeningAt: w.listeningAt } : undefined;
  }

  async readyAddresses(key: string, timeoutMs: number): Promise<string[]> {
    const now = () => (this.workers.get(key) ?? []).filter((w) => w.state === 'ready' && w.address).map((w) => w.address!);
    if (now().length || timeoutMs <= 0 || this.stopped) return now();
    await new Promise<void>((resolve) => {
      const waiters = this.readyWaiters.get(key) ?? new Set();
      this.readyWaiters.set(key, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (!waiters.size) this.readyWaiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(done);
    });
    return now();
  }

  private changed(key: string): void {
    this.publishEndpoints();
    this.opts.onChange?.(key);
    // A waiter leaves when a worker of its revision is ready (any change re-checks it).
    if ((this.workers.get(key) ?? []).some((w) => w.state === 'ready')) for (const wake of [...(this.readyWaiters.get(key) ?? [])]) wake();
  }

  /** Republish the endpoints (coalesced), e.g. after the extra endpoints changed. */
  publish(): void {
    this.publishEndpoints();
  }

  private publishEndpoints(): void {
    if (!this.opts.endpointsFile || this.endpointsTimer) return;
    // Coalesce bursts (a scale-up of many workers) into one file write.
    this.endpointsTimer = setTimeout(() => {
      this.endpointsTimer = undefined;
      this.writeEndpointsFile();
    }, 20);
  }

  private writeEndpointsFile(): void {
    const file = this.opts.endpointsFile;
    if (!file) return;
    const text = endpointsText(this.endpoints());
    // A worker starting or stopping before it listens changes no line: no write, no rename (6.5 %
    // of the operator's busy time in bench/coldstart). A file someone removed is written again.
    if (text === this.endpointsWritten && existsSync(file)) return;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, text);
    renameSync(tmp, file); // atomic: the router never reads half a file
    this.endpointsWritten = text;
  }

  private workerSpec(rev: Revision, templateEnv: Record<string, string>, runtime: { command: string; args: string[] }, credentials?: StateCredentials, pkg?: { dir: string; main: string }) {
    const t = rev.spec.template;
    const id = `${rev.metadata.name}-${++this.seq}`;
    // Its own dir, and as root its function's own uid: no worker reads another's files or environ.
    const workDir = this.isolation.workDir('workers', rev.metadata.namespace, id);
    const who = this.isolation.forFunction(rev.metadata.namespace, rev.spec.function);
    this.isolation.prepareWorkDir(workDir, who);
    const args = [...runtime.args, '--port', '0', '--instance-id', `${id}-${process.pid}`, ...revisionWorkerArgs(rev, workDir)];
    // The template's variables (secret references already resolved; never on the command line).
    const env: Record<string, string> = { ...templateEnv };
    // Code travels in the environment, not argv: argv is visible to every user in `ps`.
    if (t.source.inline !== undefined) env.ORRERY_SOURCE_INLINE = t.source.inline;
    else if (t.source.url) env.ORRERY_SOURCE_URL = t.source.url;
    // A built package is a path under the data dir, not code: argv is fine.
    else if (pkg) args.push('--source-dir', pkg.dir, '--source-main', pkg.main);
    if (this.opts.registryUrls.length) args.push('--registry-url', this.opts.registryUrls.join(','));
    // Like the state token: the environment, never argv (which every user sees in `ps`).
    const registration = this.opts.registrationCredential?.(rev);
    if (registration) env[REGISTRY_CREDENTIAL_ENV] = registration.token;
    if (credentials) {
      args.push('--state-url', credentials.url, '--state-keyspace', credentials.keyspace);
      if (credentials.fencing) args.push('--state-fencing', 'on');
      env.ORRERY_STATE_TOKEN = credentials.token;
    }
    const spec = {
      id,
      command: runtime.command,
      args,
      env,
      logFile: join(this.opts.dataDir, 'logs', rev.metadata.namespace, rev.spec.function, `${id}.log`),
      drainTimeoutMs: this.opts.drainTimeoutMs ?? (t.timeoutSeconds + 5) * 1000,
      labels: { namespace: rev.metadata.namespace, function: rev.spec.function, revision: rev.metadata.name },
      workDir,
      uid: who.uid,
      gid: who.gid,
      envPassthrough: this.opts.envPassthrough,
      onGone: () => void this.isolation.removeWorkDir(workDir),
    };
    return spec;
  }
}

/**
 * The endpoints file's text: a JSON array, one worker per line. JSON is YAML, so the file stays
 * the `--endpoints-file` YAML list the routers read; the yaml package's stringify took 4.5 % of
 * the operator's busy time in a soak (docs/performance.md), JSON.stringify a fraction of that.
 */
export function endpointsText(list: readonly object[]): string {
  return list.length === 0 ? '[]\n' : `[\n${list.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`;
}

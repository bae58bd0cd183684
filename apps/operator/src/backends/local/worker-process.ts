import { type ChildProcess, spawn } from 'node:child_process';
import { type WriteStream, createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { backoffDelay } from '@orrery/spec';
import { workerEnvironment } from './worker-env.ts';
import type { WorkerStartSlots } from './worker-start-slots.ts';

export interface WorkerProcessSpec {
  id: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  /** SIGTERM → this long to drain → SIGKILL. */
  drainTimeoutMs: number;
  /** Where the worker belongs, for endpoint listings. */
  labels: { namespace: string; function: string; revision: string };
  /** Its work dir (prepared by the owner): the process's cwd and HOME. */
  workDir: string;
  /** Run as this uid/gid (the operator is root and isolates workers); absent = the operator's own. */
  uid?: number;
  gid?: number;
  /** Names passed from the operator's environment besides the allow-list (worker-env.ts). */
  envPassthrough?: readonly string[];
  /** Called once when the worker is gone for good (not after a crash it is restarted from). */
  onGone?: () => void;
}

/** Read by both runtimes (`--exit-with-parent`): the pid whose death ends the worker. */
export const EXIT_WITH_PARENT_ENV = 'ORRERY_EXIT_WITH_PARENT';

export type WorkerState = 'starting' | 'ready' | 'backoff' | 'stopping' | 'stopped';

const LISTENING = /listening (https?:\/\/\S+)/;
const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A worker that stayed up this long is healthy again: its restart backoff resets. */
const STABLE_AFTER_MS = 60_000;
/** The longest a starting worker holds a start slot (WorkerStartSlots). */
const START_SLOT_MAX_MS = 5_000;

/**
 * One supervised child process: started, watched for its `listening …` line, restarted with
 * exponential backoff when it dies, stopped with SIGTERM → drain → SIGKILL. Output goes to a
 * per-worker log file (never to the operator's own log: it may contain function output).
 */
export class WorkerProcess {
  state: WorkerState = 'starting';
  /** host:port once the child said it is listening. */
  address?: string;
  restarts = 0;
  lastExit?: { code: number | null; signal: NodeJS.Signals | null; at: number };
  /** Set to handle an unexpected exit yourself instead of the restart (specialized pool workers). */
  onExit?: () => void;
  private child?: ChildProcess;
  private log?: WriteStream;
  /** Crashes since the worker last stayed up STABLE_AFTER_MS: the restart backoff's attempt number. */
  private crashesInARow = 0;
  private restartTimer?: NodeJS.Timeout;
  /** When the current process was spawned and said it listens (performance.now(), for cold-start breakdowns). */
  spawnedAt = 0;
  listeningAt = 0;
  private readyAt = 0;
  private tail: string[] = [];
  /** Gives back this worker's start slot (or withdraws its wait for one); a no-op when it holds none. */
  private releaseStartSlot: () => void = () => undefined;

  constructor(
    readonly spec: WorkerProcessSpec,
    private readonly onChange: (w: WorkerProcess) => void,
    /**
     * Shared by the platform's workers: how many may start at once. `peers` are the workers of
     * this one's revision or pool: with none of them ready or starting, this start is urgent
     * (a cold request may be waiting for it) and never queues. A start slower than `maxHoldMs`
     * (default 5 s) gives its slot back all the same.
     */
    private readonly startSlots?: { slots: WorkerStartSlots; peers: () => readonly WorkerProcess[]; maxHoldMs?: number },
  ) {}

  /** Starts the process now, or once a start slot is free (state `starting` meanwhile). */
  start(): void {
    this.state = 'starting';
    this.address = undefined;
    this.releaseStartSlot();
    if (!this.startSlots) return this.spawnNow();
    const urgent = !this.startSlots.peers().some((x) => x !== this && (x.state === 'ready' || x.state === 'starting'));
    const release = this.startSlots.slots.take(urgent, () => {
      // Not reached once stopped: stop() withdrew the wait. A slow start gives its slot back
      // after a while all the same, so one hung worker does not hold up everyone else's.
      setTimeout(() => release(), this.startSlots?.maxHoldMs ?? START_SLOT_MAX_MS).unref();
      this.spawnNow();
    });
    this.releaseStartSlot = release;
  }

  private spawnNow(): void {
    mkdirSync(dirname(this.spec.logFile), { recursive: true });
    this.log ??= createWriteStream(this.spec.logFile, { flags: 'a' });
    this.spawnedAt = performance.now();
    // A clean environment (an allow-list, not the operator's), its own uid when isolated.
    const child = spawn(this.spec.command, this.spec.args, {
      // ORRERY_EXIT_WITH_PARENT: a worker drains and exits once this operator is gone, so one
      // killed before it could stop its workers (SIGKILL, OOM) leaves none behind.
      env: workerEnvironment(process.env, { ...this.spec.env, [EXIT_WITH_PARENT_ENV]: String(process.pid) }, { home: this.spec.workDir, passthrough: this.spec.envPassthrough }),
      cwd: this.spec.workDir,
      ...(this.spec.uid !== undefined ? { uid: this.spec.uid, gid: this.spec.gid ?? this.spec.uid } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      this.log?.write(chunk);
      if (this.state !== 'starting') return;
      buffer += chunk.toString('utf8');
      const m = LISTENING.exec(buffer);
      if (m) {
        this.address = new URL(m[1]!).host;
        this.state = 'ready';
        this.readyAt = Date.now();
        this.listeningAt = performance.now();
        buffer = '';
        this.releaseStartSlot();
        this.onChange(this);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.log?.write(chunk);
      this.tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (this.tail.length > 20) this.tail.splice(0, this.tail.length - 20);
    });
    child.on('exit', (code, signal) => {
      this.lastExit = { code, signal, at: Date.now() };
      this.log?.write(`\n[orrery-operator] worker ${this.spec.id} exited code=${code} signal=${signal}\n`);
      if (this.child !== child) return;
      this.releaseStartSlot();
      this.child = undefined;
      if (this.state === 'stopping' || this.state === 'stopped') {
        this.state = 'stopped';
        this.onChange(this);
        return;
      }
      if (this.onExit) {
        this.state = 'stopped';
        this.address = undefined;
        this.closeLog();
        this.gone();
        this.onExit();
        return;
      }
      // Crashed: restart after a backoff that grows while the worker keeps dying young.
      if (this.readyAt && Date.now() - this.readyAt > STABLE_AFTER_MS) this.crashesInARow = 0;
      this.state = 'backoff';
      this.address = undefined;
      this.restarts++;
      // The first crash in a row restarts at once (as the kubelet does): a worker killed under
      // load is back ~0.5 s sooner, and when it was its revision's only one, every request of
      // the revision waits that long less. Only a worker that keeps dying backs off.
      const delay = this.crashesInARow === 0 ? 0 : backoffDelay(this.crashesInARow - 1, { initialMs: MIN_BACKOFF_MS, maxMs: MAX_BACKOFF_MS });
      this.crashesInARow++;
      this.restartTimer = setTimeout(() => this.start(), delay);
      this.onChange(this);
    });
    child.on('error', (err) => {
      // A process that could not be spawned never exits: its slot is given back here.
      if (this.child === child && child.pid === undefined) this.releaseStartSlot();
      this.tail.push(`spawn error: ${err.message}`);
    });
  }

  /** Last stderr lines, for status messages when a worker crash-loops. */
  recentErrors(): string[] {
    return [...this.tail];
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGTERM, wait for the drain, then SIGKILL. Resolves when the process is gone. */
  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.releaseStartSlot();
    const child = this.child;
    this.state = 'stopping';
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.state = 'stopped';
      this.child = undefined;
      this.closeLog();
      this.gone();
      return;
    }
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), this.spec.drainTimeoutMs);
    await gone;
    clearTimeout(timer);
    this.closeLog();
    this.gone();
  }

  private goneCalled = false;

  private gone(): void {
    if (this.goneCalled) return;
    this.goneCalled = true;
    try {
      this.spec.onGone?.();
    } catch {
      // cleanup is best effort: a leftover work dir is removed with the workers folder
    }
  }

  private closeLog(): void {
    this.log?.end();
    this.log = undefined;
  }
}

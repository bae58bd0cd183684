import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { backoffDelay } from '@orrery/spec';
import type { ContainerRunConfig } from './container-config.ts';
import { ContainerConfigError } from './env-resolve.ts';
import { ContainerProcess, lastLogLine, type ProcessExit } from './container-process.ts';
import { type BackoffEntry, nextRestart } from './crash-backoff.ts';
import { ProbeTracker, probeTiming } from './probe-tracker.ts';
import { terminationMessage } from './termination-message.ts';
import { type Handler, type HandlerTarget, runHandler } from './probes.ts';
import { type ContainerRecord, rfc3339, type TerminatedState } from './pod-status.ts';

/** Waits between failed container starts: 250 ms, doubling up to 10 s. */
const CONFIG_RETRY = { initialMs: 250, maxMs: 10_000 };

/** What a container runner needs from its pod worker. */
export interface RunnerHost {
  /** Prepares a start (image, env, mounts, launcher); throws ContainerConfigError to wait and retry. */
  prepare(c: V1Container): Promise<{ config: ContainerRunConfig; launcher: string; imageID: string; releaseMountPoints: () => void }>;
  files(c: V1Container): { logFile: string; pidFile: string; startMarker: string; terminationLog: string };
  netnsPath?: string;
  podIP: string;
  restartPolicy: string;
  /** spec.terminationGracePeriodSeconds. */
  terminationGraceSeconds: number;
  /** Something in the record changed: report status. */
  changed(): void;
  event(type: 'Normal' | 'Warning', reason: string, message: string, container: V1Container): void;
  stopping(): boolean;
  /** Resolves when the pod starts stopping (waits are cut short). */
  stopRequested: Promise<void>;
  podRef: string;
  log(line: string): void;
}

const sleep = (ms: number, cut: Promise<void>) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), cut]).finally(() => clearTimeout(timer));
};

/** The kubelet's minimum grace for a kill: containers always get two seconds. */
const MIN_GRACE_MS = 2000;

/**
 * One container of a pod over its whole life: starts it, runs its probes and postStart hook,
 * restarts it per the pod's restartPolicy with the kubelet's crash back-off, and stops it (preStop
 * hook, stop signal, grace, SIGKILL) when asked. Init containers run once per attempt through
 * `runOnce`; regular containers through `runForever`.
 */
export class ContainerRunner {
  readonly record: ContainerRecord;
  private proc?: ContainerProcess;
  private config?: ContainerRunConfig;
  private backoff?: BackoffEntry;
  private probesStop?: AbortController;
  private killReason?: string;
  /** Failed starts in a row (a missing Secret, an unmapped image): the wait before the next grows with them. */
  private configRetries = 0;

  constructor(
    readonly spec: V1Container,
    private readonly host: RunnerHost,
    readonly init: boolean,
    initial: { waitingReason: string; restartCount: number },
  ) {
    this.record = { name: spec.name, image: spec.image ?? '', imageID: '', state: { waiting: { reason: initial.waitingReason } }, restartCount: initial.restartCount, ready: false, started: false };
  }

  get running(): ContainerProcess | undefined {
    return this.proc?.running ? this.proc : undefined;
  }

  private waiting(reason: string, message?: string) {
    this.record.state = { waiting: message ? { reason, message } : { reason } };
    this.record.ready = false;
    this.record.started = false;
    this.host.changed();
  }

  /** Starts the container once (after config errors are resolved); undefined when the pod stops first. */
  private async start(): Promise<ContainerProcess | undefined> {
    for (;;) {
      if (this.host.stopping()) return undefined;
      try {
        const { config, launcher, imageID, releaseMountPoints } = await this.host.prepare(this.spec);
        if (this.host.stopping()) {
          releaseMountPoints();
          return undefined;
        }
        this.config = config;
        this.record.imageID = imageID;
        const { logFile, pidFile, startMarker } = this.host.files(this.spec);
        let proc: ContainerProcess;
        try {
          proc = ContainerProcess.start({ netnsPath: this.host.netnsPath, launcher, argv: config.argv, env: config.env, logFile, pidFile, startMarker });
        } catch (err) {
          releaseMountPoints();
          throw err;
        }
        void proc.exited.then(releaseMountPoints);
        this.proc = proc;
        this.configRetries = 0;
        return proc;
      } catch (err) {
        const e = err as Error;
        const reason = e instanceof ContainerConfigError ? e.reason : 'CreateContainerError';
        if (!('waiting' in this.record.state) || this.record.state.waiting.reason !== reason || this.record.state.waiting.message !== e.message) {
          this.host.event('Warning', 'Failed', `Error: ${e.message}`, this.spec);
        }
        this.waiting(reason, e.message);
        // An image that maps to nothing stays that way; a missing Secret may appear.
        await sleep(reason === 'ErrImageNotMapped' ? 3_600_000 : backoffDelay(this.configRetries++, CONFIG_RETRY), this.host.stopRequested);
      }
    }
  }

  /** Runs one container process to its end; returns how it ended (undefined: never started). */
  private async runOnce(): Promise<TerminatedState | undefined> {
    const proc = await this.start();
    if (!proc) return undefined;
    const startedAt = rfc3339(proc.startedAt);
    this.record.state = { running: { startedAt } };
    this.record.containerID = `process://${proc.pid}`;
    this.record.ready = false;
    this.record.started = !this.spec.startupProbe;
    this.killReason = undefined;
    this.host.event('Normal', 'Started', `Started container ${this.spec.name}`, this.spec);
    this.host.changed();
    if (!this.init) {
      if (this.spec.lifecycle?.postStart) void this.postStart(proc);
      this.startProbes(proc);
      if (!this.spec.readinessProbe && !this.spec.startupProbe) {
        this.record.ready = true;
        this.host.changed();
      }
    }
    const exit: ProcessExit = await proc.exited;
    this.probesStop?.abort();
    // A launcher that failed before exec is a container that never started (the runtime's StartError, exit 128).
    const reason = exit.startFailed ? 'StartError' : exit.exitCode === 0 ? 'Completed' : 'Error';
    const t: TerminatedState = { exitCode: exit.startFailed ? 128 : exit.exitCode, reason, startedAt, finishedAt: rfc3339(exit.finishedAt), containerID: `process://${proc.pid}` };
    if (exit.startFailed) {
      const why = lastLogLine(this.host.files(this.spec).logFile);
      t.message = `failed to start container "${this.spec.name}": ${why}`;
      this.host.event('Warning', 'Failed', `Error: ${t.message}`, this.spec);
    } else if (this.killReason) t.message = this.killReason;
    else {
      const files = this.host.files(this.spec);
      const message = terminationMessage(files.terminationLog, this.spec.terminationMessagePolicy, t.exitCode, files.logFile);
      if (message !== undefined) t.message = message;
    }
    this.record.state = { terminated: t };
    this.record.ready = false;
    this.record.started = false;
    this.host.changed();
    return t;
  }

  /** Whether the container should start again after ending with `t`, under the pod's restartPolicy. */
  private shouldRestart(t: TerminatedState): boolean {
    if (this.host.restartPolicy === 'Never') return false;
    if (this.host.restartPolicy === 'OnFailure' && t.exitCode === 0) return false;
    return true;
  }

  /** Waits out the crash back-off; false when the pod stops meanwhile. */
  private async backOff(t: TerminatedState): Promise<boolean> {
    const d = nextRestart(this.backoff, Date.parse(t.finishedAt) || Date.now());
    this.backoff = d.entry;
    if (d.delayMs > 0) {
      const message = `back-off ${d.delayMs / 1000}s restarting failed container=${this.spec.name} pod=${this.host.podRef}`;
      this.record.lastTerminated = t;
      this.waiting('CrashLoopBackOff', message);
      this.host.event('Warning', 'BackOff', `Back-off restarting failed container ${this.spec.name} in pod ${this.host.podRef}`, this.spec);
      await sleep(d.delayMs, this.host.stopRequested);
    }
    if (this.host.stopping()) return false;
    this.record.lastTerminated = t;
    this.record.restartCount++;
    return true;
  }

  /** A regular container: run, restart per policy, until the pod stops or the policy says done. */
  async runForever(): Promise<void> {
    for (;;) {
      const t = await this.runOnce();
      if (!t || this.host.stopping() || !this.shouldRestart(t)) return;
      if (!(await this.backOff(t))) return;
    }
  }

  /** An init container: run until it succeeds (restarting with back-off unless restartPolicy is Never). */
  async runToCompletion(): Promise<'succeeded' | 'failed' | 'stopped'> {
    for (;;) {
      const t = await this.runOnce();
      if (!t || this.host.stopping()) return 'stopped';
      if (t.exitCode === 0) {
        // A finished init container counts as ready (the kubelet's prober manager says so).
        this.record.ready = true;
        this.host.changed();
        return 'succeeded';
      }
      if (this.host.restartPolicy === 'Never') return 'failed';
      if (!(await this.backOff(t))) return 'stopped';
    }
  }

  private target(proc: ContainerProcess): HandlerTarget {
    const cfg = this.config!;
    return {
      podIP: this.host.podIP,
      container: this.spec,
      pid: proc.pid,
      env: cfg.env,
      uid: cfg.uid,
      gid: cfg.gid,
      groups: cfg.groups,
      workingDir: cfg.workingDir,
      executable: (a) => cfg.executables[a] ?? a,
    };
  }

  private async postStart(proc: ContainerProcess): Promise<void> {
    const r = await runHandler(this.spec.lifecycle!.postStart as Handler, this.target(proc), 30_000);
    if (r.ok || !proc.running) return;
    this.host.event('Warning', 'FailedPostStartHook', `PostStartHook failed: ${r.output.trim()}`, this.spec);
    this.killReason = `PostStartHook failed`;
    await proc.stop(this.graceMs(), this.config!.stopSignal);
  }

  private graceMs(probe?: V1Probe): number {
    const s = probe?.terminationGracePeriodSeconds ?? this.host.terminationGraceSeconds;
    return Math.max(s * 1000, MIN_GRACE_MS);
  }

  private startProbes(proc: ContainerProcess): void {
    const stop = new AbortController();
    this.probesStop = stop;
    const c = this.spec;
    const startup = c.startupProbe ? new ProbeTracker(probeTiming(c.startupProbe), false) : undefined;
    const readiness = c.readinessProbe ? new ProbeTracker(probeTiming(c.readinessProbe), false) : undefined;
    const liveness = c.livenessProbe ? new ProbeTracker(probeTiming(c.livenessProbe), true) : undefined;
    const loop = async (kind: 'Startup' | 'Readiness' | 'Liveness', probe: V1Probe, tracker: ProbeTracker) => {
      const timing = probeTiming(probe);
      const cut = new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true }));
      await sleep(timing.initialDelayMs, cut);
      while (!stop.signal.aborted && proc.running) {
        // Readiness and liveness wait for the startup probe to succeed.
        if (kind === 'Startup' || this.record.started) {
          const r = await runHandler(probe, this.target(proc), timing.timeoutMs);
          if (stop.signal.aborted || !proc.running) return;
          if (!r.ok) this.host.event('Warning', 'Unhealthy', `${kind} probe failed: ${r.output.trim()}`, c);
          if (tracker.record(r.ok)) this.probeChanged(kind, tracker.result, probe, proc);
          if (kind === 'Startup' && tracker.result) return;
          if ((kind === 'Liveness' || kind === 'Startup') && !tracker.result) return;
        }
        await sleep(timing.periodMs, cut);
      }
    };
    if (startup) void loop('Startup', c.startupProbe!, startup);
    if (readiness) void loop('Readiness', c.readinessProbe!, readiness);
    if (liveness) void loop('Liveness', c.livenessProbe!, liveness);
  }

  private probeChanged(kind: 'Startup' | 'Readiness' | 'Liveness', ok: boolean, probe: V1Probe, proc: ContainerProcess): void {
    if (kind === 'Readiness') {
      this.record.ready = ok && this.record.started;
    } else if (kind === 'Startup' && ok) {
      this.record.started = true;
      if (!this.spec.readinessProbe) this.record.ready = true;
    } else if (!ok) {
      // A failed liveness or startup probe restarts the container.
      const what = kind === 'Liveness' ? 'liveness' : 'startup';
      this.host.event('Normal', 'Killing', `Container ${this.spec.name} failed ${what} probe, will be restarted`, this.spec);
      this.killReason = `Container ${this.spec.name} failed ${what} probe`;
      void proc.stop(this.graceMs(probe), this.config!.stopSignal);
    }
    this.host.changed();
  }

  /**
   * Stops the running process as the kubelet kills a container: the preStop hook (regular
   * containers), then the stop signal, then SIGKILL once `graceMs` (at least 2 s) is used up.
   */
  async kill(graceMs: number, why: string): Promise<void> {
    const proc = this.running;
    if (!proc) return;
    const deadline = Date.now() + Math.max(graceMs, MIN_GRACE_MS);
    this.host.event('Normal', 'Killing', `Stopping container ${this.spec.name}${why ? `: ${why}` : ''}`, this.spec);
    if (!this.init && this.spec.lifecycle?.preStop) {
      const r = await runHandler(this.spec.lifecycle.preStop, this.target(proc), Math.max(deadline - Date.now(), 1));
      if (!r.ok) this.host.event('Warning', 'FailedPreStopHook', `PreStopHook failed: ${r.output.trim()}`, this.spec);
    }
    await proc.stop(Math.max(deadline - Date.now(), MIN_GRACE_MS), this.config?.stopSignal ?? 'SIGTERM');
  }

  /** SIGKILL now (a shortened grace period ran out). */
  forceKill(): void {
    this.running?.signal('SIGKILL');
  }
}

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';

export interface ProcessExit {
  /** The exit code, or 128 + the signal number when a signal ended it (as container runtimes report). */
  exitCode: number;
  /** The launcher failed before it could exec the command (a mount, a missing program). */
  startFailed: boolean;
  signal?: NodeJS.Signals;
  finishedAt: number;
}

export interface StartOptions {
  /** The pod's network namespace (/run/netns/…); none for hostNetwork pods. */
  netnsPath?: string;
  launcher: string;
  argv: string[];
  env: ReadonlyMap<string, string>;
  /** stdout and stderr are appended here, across restarts (like /var/log/pods). */
  logFile: string;
  /** Holds the host pid while the process runs. */
  pidFile: string;
  /** Created here, removed by the launcher just before it execs the command (LaunchPlan.startMarker). */
  startMarker: string;
}

const signalNumber = (s: NodeJS.Signals) => (constants.signals as Record<string, number>)[s] ?? 0;

/**
 * One run of a container: a process (and its process group) started through the launcher in the
 * pod's namespaces. Its environment is exactly the container's: nothing of the kubelet's own.
 */
export class ContainerProcess {
  readonly exited: Promise<ProcessExit>;
  private done = false;

  private constructor(
    readonly pid: number,
    readonly startedAt: number,
    exited: Promise<ProcessExit>,
  ) {
    this.exited = exited.finally(() => (this.done = true));
  }

  get running(): boolean {
    return !this.done;
  }

  static start(o: StartOptions): ContainerProcess {
    writeFileSync(o.startMarker, '');
    const log = openSync(o.logFile, 'a');
    const args = [
      ...(o.netnsPath ? ['/usr/bin/nsenter', `--net=${o.netnsPath}`, '--'] : []),
      '/usr/bin/unshare', '--mount', '--uts', '--propagation', 'private', '--',
      '/bin/sh', o.launcher, ...o.argv,
    ];
    let child;
    try {
      child = spawn(args[0]!, args.slice(1), { env: Object.fromEntries(o.env), stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log);
    }
    const startedAt = Date.now();
    const pid = child.pid;
    const exited = new Promise<ProcessExit>((resolve) => {
      const startFailed = () => {
        const failed = existsSync(o.startMarker);
        rmSync(o.startMarker, { force: true });
        return failed;
      };
      child.once('error', () => resolve({ exitCode: 128, startFailed: startFailed(), finishedAt: Date.now() }));
      child.once('exit', (code, signal) => {
        // No PID namespace: what the container's main process leaves behind in its group goes with it.
        if (pid) killGroup(pid, 'SIGKILL');
        rmSync(o.pidFile, { force: true });
        resolve({ exitCode: code ?? 128 + signalNumber(signal ?? 'SIGKILL'), signal: signal ?? undefined, startFailed: startFailed(), finishedAt: Date.now() });
      });
    });
    if (pid) writeFileSync(o.pidFile, `${pid}\n`);
    return new ContainerProcess(pid ?? -1, startedAt, exited);
  }

  /** Sends `signal` to the container's process group. */
  signal(signal: NodeJS.Signals): void {
    if (this.pid > 0) killGroup(this.pid, signal);
  }

  /** Stops it as the kubelet kills a container: the stop signal, up to `graceMs`, then SIGKILL. */
  async stop(graceMs: number, stopSignal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit> {
    if (!this.running) return this.exited;
    this.signal(stopSignal);
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((r) => {
      timer = setTimeout(() => {
        this.signal('SIGKILL');
        r();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return this.exited;
  }
}

/** The last non-empty line a log file ends with (why a launcher failed). */
export function lastLogLine(file: string): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.trimEnd().split('\n').at(-1)?.trim() ?? '';
  } catch {
    return '';
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

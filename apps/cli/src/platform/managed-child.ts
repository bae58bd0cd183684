/**
 * One supervised child process: its output goes to `<data-dir>/logs/<name>.log`, readiness is
 * its `listening http://…` line (or a probe), and stopping is SIGTERM, a drain window, then
 * SIGKILL — so nothing outlives the supervisor.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  logDir: string;
  /** Wait for `listening http://…` on stdout (servers) instead of returning at once (etcd). */
  waitForListening?: boolean;
  readyTimeoutMs?: number;
  /** Aborting while it is not ready yet stops it (the supervisor is shutting down). */
  signal?: AbortSignal;
}

export interface ManagedChild {
  name: string;
  process: ChildProcess;
  pid: number;
  url?: string;
  adminUrl?: string;
  logFile: string;
  exited(): boolean;
  /** The last lines the child wrote, for "why did it fail" messages. */
  tail(lines?: number): string;
  /** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves once the process is gone. */
  stop(graceMs: number): Promise<void>;
}

const LISTENING = /listening (http:\/\/\S+)(?: admin (http:\/\/\S+))?/;

export async function startChild(spec: ChildSpec): Promise<ManagedChild> {
  mkdirSync(spec.logDir, { recursive: true });
  const logFile = join(spec.logDir, `${spec.name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  log.write(`--- ${new Date().toISOString()} starting ${spec.command} ${spec.args.join(' ')}\n`);
  // Own process group: a terminal's Ctrl-C reaches only the supervisor, which then stops the
  // children in order (routers first, etcd last) instead of all of them at once.
  const child = spawn(spec.command, spec.args, { env: spec.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let recent = '';
  const onData = (c: Buffer) => {
    log.write(c);
    recent = (recent + c.toString()).slice(-8000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let gone = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      gone = true;
      log.end();
      resolve();
    });
  });

  const managed: ManagedChild = {
    name: spec.name,
    process: child,
    pid: child.pid ?? -1,
    logFile,
    exited: () => gone,
    tail: (n = 15) => recent.trimEnd().split('\n').slice(-n).join('\n'),
    async stop(graceMs) {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exitPromise;
      clearTimeout(timer);
    },
  };
  if (!child.pid) {
    await new Promise((r) => setTimeout(r, 50));
    throw new Error(`${spec.name}: could not start ${spec.command}`);
  }
  if (!spec.waitForListening) return managed;

  const timeoutMs = spec.readyTimeoutMs ?? 90_000;
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`did not print "listening" within ${timeoutMs / 1000} s`)), timeoutMs);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Error('start aborted (shutting down)'));
      };
      const check = (c: Buffer) => {
        out += c.toString();
        const m = LISTENING.exec(out);
        if (!m) return;
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        managed.url = m[1];
        managed.adminUrl = m[2];
        resolve();
      };
      child.stdout.on('data', check);
      if (spec.signal?.aborted) onAbort();
      else spec.signal?.addEventListener('abort', onAbort, { once: true });
      void exitPromise.then(() => {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        reject(new Error(`exited (code ${child.exitCode ?? child.signalCode}) before it was ready`));
      });
    });
  } catch (err) {
    await managed.stop(2_000);
    throw new Error(`${spec.name} ${(err as Error).message}; see ${logFile}:\n${managed.tail()}`);
  }
  return managed;
}

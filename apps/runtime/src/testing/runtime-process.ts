import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const RUNTIME_BIN = fileURLToPath(new URL('../../bin/orrery-runtime.mjs', import.meta.url));
export const PROBE_FIXTURE = fileURLToPath(new URL('../../fixtures/probe.mjs', import.meta.url));

/** A real `orrery-runtime` child process, for integration tests. */
export interface RuntimeProcess {
  url: string;
  adminUrl?: string;
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

export async function startRuntime(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<RuntimeProcess> {
  return spawnRuntimeProcess('orrery-runtime', process.execPath, [RUNTIME_BIN, '--port', '0', ...args], env, timeoutMs);
}

/**
 * Spawns a runtime (`label` names it in errors) at debug level and waits for its `listening …`
 * line; killed if it does not print one within `timeoutMs`.
 */
export async function spawnRuntimeProcess(label: string, command: string, argv: string[], env: Record<string, string>, timeoutMs: number): Promise<RuntimeProcess> {
  // The test's own ORRERY_* settings must not leak in: each test says what it runs with.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ORRERY_')));
  const proc = spawn(command, argv, {
    env: { ...base, ORRERY_LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${label} did not print listening within ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    const check = () => {
      const m = /^listening (\S+)(?: admin (\S+))?$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    proc.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code}) before listening; stderr:\n${err}`));
    });
  });
  const m = /^listening (\S+)(?: admin (\S+))?$/.exec(line)!;
  return {
    url: m[1]!,
    adminUrl: m[2],
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    },
  };
}

/**
 * A runtime started by a stand-in parent process (node) with `--exit-with-parent <its pid>`, as the
 * local operator starts its workers: `parent` is that process (the runtime's stdout and stderr
 * are its own, so its `listening …` line is awaited as usual), `workerPid` the runtime's.
 */
export async function startUnderParent(launch: { command: string; args: string[] }, args: string[], env: Record<string, string> = {}): Promise<{ parent: RuntimeProcess; workerPid: number }> {
  const script = `const { spawn } = require('node:child_process');
const [command, ...args] = JSON.parse(process.argv[1]);
const worker = spawn(command, [...args, '--exit-with-parent', String(process.pid)], { stdio: ['ignore', 'inherit', 'inherit'] });
process.stdout.write('worker pid ' + worker.pid + '\\n');
setInterval(() => {}, 1 << 30);`;
  const parent = await spawnRuntimeProcess('stand-in parent', process.execPath, ['-e', script, JSON.stringify([launch.command, ...launch.args, '--port', '0', ...args])], env, 30_000);
  const workerPid = Number(/^worker pid (\d+)$/m.exec(parent.stdout())?.[1]);
  if (!Number.isInteger(workerPid)) throw new Error(`the stand-in parent did not say its worker's pid: ${parent.stdout()}`);
  return { parent, workerPid };
}

/** Stops a runtime for good (SIGKILL after a grace period) and waits for it. */
export async function stopRuntime(rt: RuntimeProcess | undefined, graceMs = 5000): Promise<void> {
  if (!rt) return;
  rt.kill('SIGTERM');
  const timer = setTimeout(() => rt.kill('SIGKILL'), graceMs);
  await rt.exited;
  clearTimeout(timer);
}

/** Polls until `check` returns a truthy value (generous by default: the machine is shared). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err as Error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

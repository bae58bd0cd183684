/** A real `orrery-runtime-python` child process (python3, as the local backend starts it), for integration tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PYTHON_RUNTIME_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const PYTHON_RUNTIME_SCRIPT = fileURLToPath(new URL('../../orrery-runtime-python.py', import.meta.url));
export const PYTHON_PROBE = fileURLToPath(new URL('../../fixtures/probe.py', import.meta.url));

/** Debian's python3 when present (what the operator prefers), else the first python3 on PATH. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** How the local backend and the image start it: isolated (-I), no bytecode files (-B). */
export const PYTHON_ARGS = ['-I', '-B', PYTHON_RUNTIME_SCRIPT];

export interface PythonRuntimeProcess {
  url: string;
  adminUrl?: string;
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts the runtime with `--port 0` and waits for its `listening …` line. */
export async function startPythonRuntime(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<PythonRuntimeProcess> {
  // The test's own ORRERY_* settings must not leak in: each test says what it runs with.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ORRERY_')));
  const proc = spawn(PYTHON, [...PYTHON_ARGS, '--port', '0', ...args], {
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
      reject(new Error(`orrery-runtime-python did not print listening within ${timeoutMs} ms; stderr:\n${err}`));
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
      reject(new Error(`orrery-runtime-python exited (${code}) before listening; stderr:\n${err}`));
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

/** Stops a runtime for good (SIGKILL after a grace period) and waits for it. */
export async function stopPythonRuntime(rt: PythonRuntimeProcess | undefined, graceMs = 5000): Promise<void> {
  if (!rt) return;
  rt.kill('SIGTERM');
  const timer = setTimeout(() => rt.kill('SIGKILL'), graceMs);
  await rt.exited;
  clearTimeout(timer);
}

/** Polls until `check` returns a truthy value (generous by default: the machine is shared). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e as Error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs the runtime's Python unit tests (`python3 -m unittest`, standard library only) and collects their output. */
export function runPythonUnitTests(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(PYTHON, ['-B', '-m', 'unittest', 'discover', '-s', 'orrery_runtime', '-t', '.', '-v'], { cwd: PYTHON_RUNTIME_DIR });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => resolve({ code, out }));
  });
}

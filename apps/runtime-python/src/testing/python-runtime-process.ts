/** A real `orrery-runtime-python` child process (python3, as the local backend starts it), for integration tests. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnRuntimeProcess, type RuntimeProcess } from '../../../runtime/src/testing/runtime-process.ts';

export const PYTHON_RUNTIME_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const PYTHON_RUNTIME_SCRIPT = fileURLToPath(new URL('../../orrery-runtime-python.py', import.meta.url));
export const PYTHON_PROBE = fileURLToPath(new URL('../../fixtures/probe.py', import.meta.url));

/** Debian's python3 when present (what the operator prefers), else the first python3 on PATH. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** How the local backend and the image start it: isolated (-I), no bytecode files (-B). */
export const PYTHON_ARGS = ['-I', '-B', PYTHON_RUNTIME_SCRIPT];

/** Starts the runtime with `--port 0` and waits for its `listening …` line. */
export function startPythonRuntime(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<RuntimeProcess> {
  return spawnRuntimeProcess('orrery-runtime-python', PYTHON, [...PYTHON_ARGS, '--port', '0', ...args], env, timeoutMs);
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

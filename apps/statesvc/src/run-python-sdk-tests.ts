/** Runs a test module of the Python SDK (sdk/python) with python3 and collects what it printed (for the SDK int tests). */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PY_SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'sdk', 'python');

/** `args` after `python3 -m` (e.g. `['pytest', '-q', 'test_x.py']`); `env` on top of this process's. */
export function runPythonSdkTests(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn('python3', ['-m', ...args], { cwd: PY_SDK_DIR, env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => resolve({ code, out }));
  });
}

/** Starts the real `orrery-statesvc` binary (tests, benchmark) and waits for its listening line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATESVC_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orrery-statesvc.mjs');

export interface StatesvcProcess {
  url: string;
  proc: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill9(): Promise<void>;
}

export async function spawnStatesvc(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<StatesvcProcess> {
  const proc = spawn(process.execPath, [STATESVC_BIN, '--port', '0', ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`statesvc did not start within ${opts.timeoutMs ?? 60_000} ms:\n${err}`));
    }, opts.timeoutMs ?? 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`statesvc exited with ${code} before listening:\n${err}`));
    });
  });
  const signal = async (sig: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    await exited;
  };
  return { url, proc, stderr: () => err, stop: () => signal('SIGTERM'), kill9: () => signal('SIGKILL') };
}

import { type ChildProcess, spawn } from 'node:child_process';

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far (stdout + stderr), for failure messages. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a bin and waits for its `listening http://…` line. */
export async function spawnServer(bin: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000, nodeFlags: readonly string[] = []): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [...nodeFlags, bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${bin} did not print "listening" within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /listening (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    child,
    url,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

export async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch {
      // not yet: keep polling
    }
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

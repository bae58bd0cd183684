/**
 * A component started as its real binary for a log test: stdout and stderr kept apart (the
 * handshake may only be on stdout), started with the given environment, stopped with SIGTERM so
 * its shutdown records are part of what is checked.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface LoggingProcess {
  child: ChildProcess;
  /** The `listening …` line's first URL and its admin URL, if it printed one. */
  url: string;
  adminUrl?: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export function startLoggingProcess(bin: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 30_000): Promise<LoggingProcess> {
  // The test's own ORRERY_LOG_* settings must not leak in: each test says what it runs with.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ORRERY_LOG_')));
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...base, ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 10_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(kill);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${bin} did not print "listening" within ${timeoutMs} ms:\n${out}\n${err}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening (\S+)(?: admin (\S+))?$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, adminUrl: m[2], stdout: () => out, stderr: () => err, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
}

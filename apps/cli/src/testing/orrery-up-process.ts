/**
 * `orrery up` as a real process, the way the platform tests run it: free ports (`--port-base 0`),
 * their own data dir, stdout and stderr kept (a pipe, as in CI). `ready()` fails at once, with the
 * output, when it exits before its ready line; `stop()` is what a user's Ctrl-C-less shutdown
 * does (SIGTERM), with a SIGKILL after a minute so that a hung stop cannot hang the suite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type PlatformInfo, readPlatformInfo } from '../platform/platform-file.ts';
import { until } from './until.ts';

export const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');

export interface OrreryUp {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr as they came. */
  output(): string;
  /** Its exit code once it exits (null when a signal ended it). */
  exit: Promise<number | null>;
  /** Waits for `orrery up: ready`, then answers the platform file it wrote. */
  ready(timeoutMs: number): Promise<PlatformInfo>;
  /** SIGTERM (SIGKILL after 60 s), and waits for the exit; nothing when it has already exited. */
  stop(): Promise<void>;
}

export interface OrreryUpOptions {
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Where it runs: the CLI's other commands find the platform from a `.orrery` under it. */
  cwd?: string;
}

/** Starts `orrery up --port-base 0 --data-dir <dataDir> <flags…>`. */
export function startOrreryUp(dataDir: string, flags: string[] = [], o: OrreryUpOptions = {}): OrreryUp {
  const child = spawn(process.execPath, [CLI, 'up', '--port-base', '0', '--data-dir', dataDir, ...flags], { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    output: () => out,
    exit,
    async ready(timeoutMs) {
      await until(() => exited() || out.includes('orrery up: ready'), (done) => done, timeoutMs, 'orrery up ready or exited').catch((err: Error) => {
        throw new Error(`${err.message}\n--- orrery up output:\n${out}`);
      });
      if (!out.includes('orrery up: ready')) throw new Error(`orrery up exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready:\n${out}`);
      return readPlatformInfo(dataDir)!;
    },
    async stop() {
      if (exited()) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(t);
    },
  };
}

/**
 * A real local operator (apps/operator's binary, as `orrery up` starts it: embedded store, admin
 * API, workers as child processes) on a free port with a temp data dir, for CLI tests that need
 * revisions made and workers started. Started as a process, never imported: apps do not import
 * other apps.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliRun } from './cli-api-harness.ts';

const OPERATOR = join(import.meta.dirname, '..', '..', '..', 'operator', 'bin', 'orrery-operator.mjs');
const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const ADMIN_TOKEN = 'cli-local-operator-admin-token-0123456789';

export interface LocalOperator {
  apiUrl: string;
  dir: string;
  dataDir: string;
  /** Runs `orrery …` (the source entry) against this operator's admin API, in `dir`. */
  orrery(args: string[], opts?: { env?: Record<string, string>; stdin?: string }): Promise<CliRun>;
  output(): string;
  close(): Promise<void>;
}

/** Runs a CLI entry (bin/orrery.mjs or a bundle) as a process; `env` adds to a clean environment. */
export function runCli(entry: string, args: string[], cwd: string, env: Record<string, string>, stdin?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    // A developer's own platform settings must not leak into the test.
    const { ORRERY_STORE_URL: _s, ORRERY_STORE_TOKEN: _t, ORRERY_API_URL: _a, ORRERY_API_TOKEN: _k, ORRERY_DATA_DIR: _d, KUBECONFIG: _kc, ...clean } = process.env;
    const child = spawn(process.execPath, [entry, ...args], { cwd, env: { ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end(stdin ?? '');
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

export async function startLocalOperator(): Promise<LocalOperator> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-cli-operator-'));
  const dataDir = join(dir, 'data');
  const tokenFile = join(dir, 'admin.token');
  writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
  const child: ChildProcess = spawn(process.execPath, [OPERATOR, '--port', '0', '--data-dir', dataDir, '--resync-seconds', '1', '--admin-token-file', tokenFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the operator did not listen within 60 s:\n${log}`)), 60_000);
    const check = () => {
      const m = /listening (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`the operator exited ${code}:\n${log}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    apiUrl,
    dir,
    dataDir,
    orrery: (args, opts = {}) => runCli(CLI, args, dir, { ORRERY_API_URL: apiUrl, ORRERY_API_TOKEN: ADMIN_TOKEN, ...opts.env }, opts.stdin),
    output: () => log,
    async close() {
      // SIGTERM: the operator stops its workers first.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

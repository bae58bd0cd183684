/**
 * Security tests' plumbing for the console: the built console (`next build`, made here when the
 * build is missing or older than the sources, like `orrery up` does) served by its real server
 * (bin/orrery-console.mjs) in front of a real operator process (admin-api-process.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { spawnServer, type SpawnedServer } from '../../../operator/src/testing/spawn-server.ts';

export const CONSOLE_DIR = resolve(import.meta.dirname, '..', '..');
const CONSOLE_BIN = join(CONSOLE_DIR, 'bin', 'orrery-console.mjs');
const NEXT_BIN = resolve(CONSOLE_DIR, '..', '..', 'node_modules', 'next', 'dist', 'bin', 'next');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, e)));
  return newest;
}

/** Builds the console unless `.next/BUILD_ID` is newer than every source, config and package file. */
export async function ensureConsoleBuilt(): Promise<void> {
  const id = join(CONSOLE_DIR, '.next', 'BUILD_ID');
  const inputs = ['src', 'next.config.ts', 'package.json', 'tsconfig.json', join('..', '..', 'packages', 'api', 'src', 'http')].map((p) => join(CONSOLE_DIR, p)).filter((p) => existsSync(p));
  if (existsSync(id) && inputs.every((p) => newestMtime(p) <= statSync(id).mtimeMs)) return;
  const child = spawn(process.execPath, [NEXT_BIN, 'build'], { cwd: CONSOLE_DIR, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`next build failed (exit ${code}):\n${out.slice(-3000)}`);
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/** The console's server on a free port, forwarding /trpc to `apiUrl`. */
export async function startConsole(apiUrl: string, args: string[] = [], env: Record<string, string> = {}): Promise<SpawnedServer> {
  const port = await freePort();
  // A developer's own settings must not leak in.
  const clean = { ORRERY_TRUSTED_PROXIES: '', ORRERY_PUBLIC_ORIGIN: '', ...env };
  return spawnServer(CONSOLE_BIN, ['--host', '127.0.0.1', '--port', String(port), '--api-url', apiUrl, ...args], clean, 90_000);
}

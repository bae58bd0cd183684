/**
 * Makes V8's code cache of the runtime's CommonJS body, for code-cached-boot.mjs:
 *
 *   node make-code-cache.mjs <body.cjs> <cache file>
 *
 * Runs one worker of its own through the boot with `--write-cache` — a built-in inline function,
 * an empty environment, one request, then SIGTERM — and keeps the cache V8 holds when it exits:
 * the start, the first request's path and the shutdown compiled. No function author's code runs
 * in the process whose compiled code later workers load. The cache is written atomically, mode
 * 0644 (every worker reads it; only its maker writes it).
 *
 * Used by the local backend (once per body and node: apps/operator/src/backends/local/
 * runtime-bundle.ts) and by `npm run build:apps` for the image, whose build stage runs the same
 * node as its runtime stage (a cache V8 rejects only costs the compile: the boot says `rejected`).
 * Exit 0 when the cache is written; 1 with the reason on stderr.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BOOT = join(dirname(fileURLToPath(import.meta.url)), 'code-cached-boot.mjs');
const TIMEOUT_MS = 15_000;

/** Resolves once `cache` holds the code cache of `body`; rejects with what went wrong. */
export async function makeCodeCache(body, cache) {
  const workDir = mkdtempSync(join(tmpdir(), 'orrery-code-cache-'));
  const tmp = `${cache}.tmp-${process.pid}`;
  const child = spawn(process.execPath, [BOOT, '--write-cache', tmp, body, cache, '--port', '0', '--host', '127.0.0.1', '--function', 'code-cache', '--revision', 'code-cache-00001', '--work-dir', workDir, '--log-level', 'error'], {
    // Nothing of the caller's environment: every runtime flag can come from it (ORRERY_<FLAG>),
    // and this worker must not register anywhere or hold a credential.
    env: { PATH: process.env.PATH ?? '', ORRERY_SOURCE_INLINE: "export default async () => new Response('ok');" },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
  try {
    const url = await new Promise((ok, fail) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d.toString();
        const m = /listening (https?:\/\/\S+)/.exec(out);
        if (m) ok(m[1]);
      });
      child.once('exit', (code, signal) => fail(new Error(`the code-cache worker exited (${signal ?? code}) before it was listening: ${stderr.trim()}`)));
    });
    const res = await fetch(`${url}/`);
    await res.text();
    if (res.status !== 200) throw new Error(`the code-cache worker answered ${res.status}`);
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0 || !existsSync(tmp) || statSync(tmp).size === 0) throw new Error(`the code-cache worker exited ${code} without a cache: ${stderr.trim()}`);
    chmodSync(tmp, 0o644);
    renameSync(tmp, cache);
  } finally {
    clearTimeout(timer);
    child.kill('SIGKILL');
    rmSync(tmp, { force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [body, cache] = process.argv.slice(2);
  if (!body || !cache) {
    process.stderr.write('usage: node make-code-cache.mjs <body.cjs> <cache file>\n');
    process.exit(2);
  }
  try {
    await makeCodeCache(resolve(body), resolve(cache));
  } catch (err) {
    process.stderr.write(`make-code-cache: ${err.message}\n`);
    process.exit(1);
  }
}

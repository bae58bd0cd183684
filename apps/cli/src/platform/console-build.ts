/**
 * The console is a Next.js app and must be built (`next build`, ~20 s) before it can serve.
 * `orrery up` builds it when the build is missing or older than any console source, showing
 * progress, so a fresh clone and an edited console both just work.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_DIR = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..', 'console');
const NEXT_BIN = resolve(CONSOLE_DIR, '..', '..', 'node_modules', 'next', 'dist', 'bin', 'next');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, e)));
  return newest;
}

/** True when `.next/BUILD_ID` exists and no source, config or package file is newer. */
export function consoleBuildIsFresh(dir = CONSOLE_DIR): boolean {
  const id = join(dir, '.next', 'BUILD_ID');
  if (!existsSync(id)) return false;
  const built = statSync(id).mtimeMs;
  const inputs = ['src', 'next.config.ts', 'package.json', 'tsconfig.json'].map((p) => join(dir, p)).filter((p) => existsSync(p));
  return inputs.every((p) => newestMtime(p) <= built);
}

/** Runs `next build`; each finished step is reported through `say`; the full output goes to the log. */
export async function buildConsole(logDir: string, say: (line: string) => void, dir = CONSOLE_DIR): Promise<void> {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, 'console-build.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const started = Date.now();
  say('  … building the console (next build, about 20 s; only when its sources changed)');
  const child = spawn(process.execPath, [NEXT_BIN, 'build'], { cwd: dir, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let recent = '';
  const onData = (c: Buffer) => {
    log.write(c);
    recent = (recent + c.toString()).slice(-4000);
    for (const line of c.toString().split('\n')) {
      const t = line.trim();
      if (t.startsWith('✓')) say(`    ${t}`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  log.end();
  if (code !== 0) throw new Error(`next build failed (exit ${code}); see ${logFile}:\n${recent.trimEnd().split('\n').slice(-10).join('\n')}`);
  say(`  ✓ console built in ${Math.round((Date.now() - started) / 1000)} s`);
}

import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { BuildReason } from '@orrery/spec';
import { readArchive } from './archive-entries.ts';
import type { BuilderRuntime } from './builder-for-runtime.ts';
import { extractEntries } from './extract-archive.ts';
import { defaultMain, installCommand } from './install-command.ts';
import { PackageError } from './limits.ts';
import { redactingLog, type BuildPathNames } from './redact-build-paths.ts';

export type BuildOutcome =
  | { ok: true; dependencies: number; sizeBytes: number; main: string }
  | { ok: false; reason: BuildReason; message: string };

export interface BuildPackageOptions {
  archive: Buffer;
  sha256: string;
  runtime: BuilderRuntime;
  /** Where the built package ends up; created atomically (rename) only when the build succeeds. */
  outDir: string;
  main?: string;
  timeoutMs?: number;
  onLog: (chunk: string) => void;
  /** npm and python3 to run (default: the npm beside this node, and /usr/bin/python3 or python3 on PATH); pip must run with the python that runs the function. */
  tools?: { npm?: string; python?: string };
}

/** Written into a built package: a second build of the same key reads it and is done. */
export const BUILD_MARKER = '.orrery-build.json';
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

function defaultNpm(): string {
  const beside = join(dirname(process.execPath), 'npm');
  return existsSync(beside) ? beside : 'npm';
}

/** Debian's python3 (the one the local Python runtime prefers, with pip 23), else python3 on PATH. */
function defaultPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) {
    const info = await lstat(join(dir, name));
    total += info.isDirectory() ? await sizeOf(join(dir, name)) : info.size;
  }
  return total;
}

/** Installed packages, transitive ones included: node_modules folders with a package.json, or pip's *.dist-info. */
async function countDependencies(runtime: BuilderRuntime, dir: string): Promise<number> {
  if (runtime === 'python') {
    const site = join(dir, '.python-packages');
    if (!existsSync(site)) return 0;
    return (await readdir(site)).filter((n) => n.endsWith('.dist-info')).length;
  }
  let count = 0;
  async function walk(nodeModules: string): Promise<void> {
    if (!existsSync(nodeModules)) return;
    for (const name of await readdir(nodeModules)) {
      if (name.startsWith('.')) continue;
      const path = join(nodeModules, name);
      if (name.startsWith('@')) {
        for (const scoped of await readdir(path)) {
          count += 1;
          await walk(join(path, scoped, 'node_modules'));
        }
        continue;
      }
      count += 1;
      await walk(join(path, 'node_modules'));
    }
  }
  await walk(join(dir, 'node_modules'));
  return count;
}

function run(command: { file: string; args: string[] }, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, onLog: (chunk: string) => void): Promise<{ code: number | null; timedOut: boolean; spawnError?: string }> {
  return new Promise((resolve) => {
    const child = spawn(command.file, command.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole group: npm and pip start children of their own.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', onLog);
    child.stderr.setEncoding('utf8').on('data', onLog);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, timedOut, spawnError: err.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut });
    });
  });
}

/** The build's folders as given and as the kernel resolves them (npm and pip print either). */
async function buildPathNames(outDir: string, work: string, home: string): Promise<BuildPathNames> {
  const both = async (p: string) => [p, await realpath(p).catch(() => p)];
  const realOut = join(await realpath(dirname(outDir)).catch(() => dirname(outDir)), basename(outDir));
  return { package: [...(await both(work)), outDir, realOut], home: await both(home) };
}

async function readDone(outDir: string): Promise<BuildOutcome | undefined> {
  try {
    const done = JSON.parse(await readFile(join(outDir, BUILD_MARKER), 'utf8')) as { dependencies: number; sizeBytes: number; main: string };
    return { ok: true, dependencies: done.dependencies, sizeBytes: done.sizeBytes, main: done.main };
  } catch {
    return undefined;
  }
}

/**
 * Builds a package: verifies the archive against its sha256, extracts it safely, installs its
 * dependencies (npm or pip, no install scripts, a throwaway cache and HOME, no inherited
 * environment) and checks the module to load exists. The work happens in a temp folder beside
 * outDir that is renamed into place only on success, so outDir is either absent or complete.
 */
export async function buildPackage(options: BuildPackageOptions): Promise<BuildOutcome> {
  const { archive, sha256, runtime, outDir, onLog } = options;
  const done = await readDone(outDir);
  if (done) return done;
  const actual = createHash('sha256').update(archive).digest('hex');
  if (actual !== sha256) return { ok: false, reason: 'ArchiveInvalid', message: `the archive's sha256 is ${actual}, not ${sha256}; upload it again or fix package.sha256` };

  await mkdir(dirname(outDir), { recursive: true });
  const work = `${outDir}.building-${randomBytes(6).toString('hex')}`;
  const home = join(tmpdir(), `orrery-build-home-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(work, { recursive: true });
    try {
      await extractEntries(readArchive(archive), work);
    } catch (err) {
      const message = err instanceof PackageError ? err.message : `extracting failed: ${(err as Error).message}`;
      return { ok: false, reason: 'ArchiveInvalid', message };
    }
    const exists = (p: string): boolean => existsSync(join(work, p));
    let packageJsonMain: string | undefined;
    if (runtime === 'node' && exists('package.json')) {
      try {
        const pkg = JSON.parse(await readFile(join(work, 'package.json'), 'utf8')) as { main?: unknown };
        if (typeof pkg.main === 'string') packageJsonMain = pkg.main;
      } catch (err) {
        return { ok: false, reason: 'DependenciesFailed', message: `package.json is not valid JSON: ${(err as Error).message}` };
      }
    }
    const command = installCommand(
      runtime,
      { hasPackageJson: exists('package.json'), hasLockFile: exists('package-lock.json') || exists('npm-shrinkwrap.json'), hasRequirements: exists('requirements.txt'), hasVendor: exists('vendor') },
      { npm: options.tools?.npm ?? defaultNpm(), python: options.tools?.python ?? defaultPython() },
    );
    if (command) {
      await mkdir(home, { recursive: true });
      // Only what the tools need: the operator's own environment (tokens, keys) stays out of builds.
      const env: NodeJS.ProcessEnv = {
        PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin'}`,
        HOME: home,
        npm_config_cache: join(home, 'npm-cache'),
        npm_config_update_notifier: 'false',
        PIP_NO_CACHE_DIR: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        ...(process.env['npm_config_registry'] ? { npm_config_registry: process.env['npm_config_registry'] } : {}),
        ...(process.env['PIP_INDEX_URL'] ? { PIP_INDEX_URL: process.env['PIP_INDEX_URL'] } : {}),
      };
      onLog(`$ ${[command.file.split('/').pop(), ...command.args].join(' ')}\n`);
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      // The log shows $PACKAGE and $BUILD_HOME instead of this build's random folders.
      const paths = await buildPathNames(outDir, work, home);
      const toolLog = redactingLog(onLog, paths);
      const result = await run(command, work, env, timeoutMs, (chunk) => toolLog.push(chunk));
      toolLog.flush();
      if (result.timedOut) return { ok: false, reason: 'BuildTimeout', message: `installing dependencies took longer than ${Math.round(timeoutMs / 1000)} s` };
      if (result.code !== 0) {
        const tool = runtime === 'node' ? 'npm' : 'pip';
        return { ok: false, reason: 'DependenciesFailed', message: result.spawnError ? `could not run ${tool}: ${result.spawnError}` : `${tool} exited with code ${result.code}; the log's tail says why` };
      }
    }
    const main = options.main ?? defaultMain(runtime, exists, packageJsonMain);
    const mainPath = join(work, main);
    const root = await realpath(work);
    const realMain = await realpath(mainPath).catch(() => undefined);
    const rel = realMain === undefined ? undefined : relative(root, realMain);
    if (rel === undefined || rel.startsWith(`..${sep}`) || rel === '..') {
      return { ok: false, reason: 'MainMissing', message: `the package has no ${main}; add it or set package.main to the module to load` };
    }
    const outcome = { ok: true as const, dependencies: await countDependencies(runtime, work), sizeBytes: await sizeOf(work), main };
    await writeFile(join(work, BUILD_MARKER), JSON.stringify({ sha256, runtime, main, dependencies: outcome.dependencies, sizeBytes: outcome.sizeBytes }));
    try {
      await rename(work, outDir);
    } catch (err) {
      // Someone else finished the same key first: theirs is as good as ours.
      const theirs = await readDone(outDir);
      if (theirs) return theirs;
      throw err;
    }
    return outcome;
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

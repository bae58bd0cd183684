/**
 * One process per data directory: a `lock` file holding `<pid>\n<boot id>\n<owner>\n`, created
 * atomically (written to a temporary file, then hard-linked to `lock`, which fails when it exists:
 * the same guarantee as O_EXCL, but the lock is never seen empty). A lock is stale when its pid
 * is not running, when it was written before the last reboot (another boot id), or when it names
 * this very pid (a restarted container's pid 1); a stale lock is taken over. The check cannot see
 * processes in another pid namespace (two containers sharing one volume).
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'lock';

/** Data dirs this process holds: a second open in the same process is refused too. */
const held = new Set<string>();

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `data directory ${dir} is in use by another ${pid === process.pid ? 'driver in this process' : `process (pid ${pid})`}: only one statesvc may use a data directory; ` +
        `stop it first (or, if pid ${pid} is not a statesvc, delete ${join(dir, LOCK_FILE)})`,
    );
    this.name = 'DataDirLockedError';
  }
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid holding a lock file's content, or undefined when that lock is stale. */
function holder(content: string, boot: string): number | undefined {
  const [pidText = '', lockBoot = ''] = content.split('\n');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (boot && lockBoot && lockBoot !== boot) return undefined;
  if (pid === process.pid) return undefined;
  return alive(pid) ? pid : undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Takes the exclusive lock of `dir` (which must exist) or throws DataDirLockedError. */
export function lockDataDir(dir: string, owner = 'orrery-statesvc'): DataDirLock {
  const abs = resolve(dir);
  const lockPath = join(abs, LOCK_FILE);
  if (held.has(abs)) throw new DataDirLockedError(abs, process.pid);
  const boot = bootId();
  const content = `${process.pid}\n${boot}\n${owner}\n`;
  const tmp = join(abs, `${LOCK_FILE}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(tmp, content, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, lockPath);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const existing = readOrUndefined(lockPath);
      if (existing === undefined) continue; // released meanwhile: try again
      const pid = holder(existing, boot);
      if (pid !== undefined || attempt >= 5) throw new DataDirLockedError(abs, pid ?? Number(existing.split('\n')[0]));
      // Stale. Move it aside first, so that of two processes taking it over only one removes it.
      const aside = `${tmp}.stale`;
      try {
        renameSync(lockPath, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = readFileSync(aside, 'utf8');
      const movedPid = holder(moved, boot);
      if (movedPid !== undefined) {
        // Someone took it over between our read and the rename: put theirs back.
        try {
          linkSync(aside, lockPath);
        } catch {
          /* a third process holds it now */
        }
        rmSync(aside, { force: true });
        throw new DataDirLockedError(abs, movedPid);
      }
      rmSync(aside, { force: true });
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  held.add(abs);
  let released = false;
  return {
    path: lockPath,
    release() {
      if (released) return;
      released = true;
      held.delete(abs);
      try {
        if (readOrUndefined(lockPath) === content) rmSync(lockPath, { force: true });
      } catch {
        /* the directory is gone: nothing to release */
      }
    },
  };
}

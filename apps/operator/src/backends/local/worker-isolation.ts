import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_UID_RANGE, type UidRange, WorkerUidAllocator } from './worker-uid.ts';

/**
 * How local workers are kept apart (issue 20 item 7). As root (`isolate: auto`, the default, or
 * `on`): every function's workers run under their own unprivileged uid (worker-uid.ts), in a work
 * dir of their own (mode 0700, owned by that uid) outside the data dir, which becomes 0700 —
 * so a function's code cannot read another function's token files, the master key, the store's
 * database or another worker's /proc/<pid>/environ. Not as root (or `off`), workers run as the
 * operator's own user: file modes cannot keep them apart (docs/operations.md says what that means).
 */
export type IsolationMode = 'auto' | 'on' | 'off';

export interface WorkerIdentity {
  uid?: number;
  gid?: number;
  /** Gives a pool worker's uid back once the worker is gone. */
  release?: () => void;
}

export interface WorkerIsolationOptions {
  dataDir: string;
  mode?: IsolationMode;
  uidRange?: UidRange;
  /** Defaults to `process.getuid() === 0`. */
  isRoot?: boolean;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export function parseIsolationMode(text: string | undefined): IsolationMode {
  const m = text ?? 'auto';
  if (m !== 'auto' && m !== 'on' && m !== 'off') throw new Error(`--isolate-workers must be auto, on or off, got ${JSON.stringify(m)}`);
  return m;
}

const UID_TABLE = 'worker-uids.json';

export class WorkerIsolation {
  readonly enabled: boolean;
  /** Where work dirs live: `<data-dir>` without isolation, a private folder under /tmp with it. */
  readonly workersRoot: string;
  private readonly uids?: WorkerUidAllocator;

  private constructor(
    private readonly o: WorkerIsolationOptions,
    enabled: boolean,
  ) {
    this.enabled = enabled;
    if (!enabled) {
      this.workersRoot = o.dataDir;
      return;
    }
    // Workers cannot reach anything under the data dir (it may sit below a 0700 home, and it holds
    // the store, the secrets and the logs): their dirs live in a fresh folder only root can list.
    // mkdtemp: a name nobody could have created first.
    this.workersRoot = mkdtempSync(join(tmpdir(), 'orrery-workers-'));
    chmodSync(this.workersRoot, 0o711);
    mkdirSync(o.dataDir, { recursive: true });
    chmodSync(o.dataDir, 0o700);
    this.uids = new WorkerUidAllocator(o.uidRange ?? DEFAULT_UID_RANGE, this.readTable());
  }

  static create(o: WorkerIsolationOptions): WorkerIsolation {
    const mode = o.mode ?? 'auto';
    const isRoot = o.isRoot ?? process.getuid?.() === 0;
    if (mode === 'on' && !isRoot) throw new Error('--isolate-workers on needs the operator to run as root (it starts workers under other uids)');
    const iso = new WorkerIsolation(o, isRoot && mode !== 'off');
    if (iso.enabled) o.log?.('workers run under their own uids', { range: `${iso.uids!.range.first}-${iso.uids!.range.last}`, workDirs: iso.workersRoot });
    else o.log?.(isRoot ? 'worker isolation is off (--isolate-workers off): workers run as root' : 'not root: workers run as the operator\'s own user (no per-function uids; see docs/operations.md)');
    return iso;
  }

  /** A deploy worker's identity: the function's own, stable uid. */
  forFunction(namespace: string, fn: string): WorkerIdentity {
    if (!this.uids) return {};
    const { uid, changed } = this.uids.forFunction(namespace, fn);
    if (changed) this.writeTable();
    return { uid, gid: uid };
  }

  /** A generic pool worker's identity: a uid of its own until it is gone. */
  forPoolWorker(): WorkerIdentity {
    if (!this.uids) return {};
    const uid = this.uids.acquireTransient();
    return { uid, gid: uid, release: () => this.uids!.release(uid) };
  }

  /** `<root>/<kind>/<namespace>/<id>`. */
  workDir(kind: 'workers' | 'pool', namespace: string, id: string): string {
    return join(this.workersRoot, kind, namespace, id);
  }

  /** Creates the work dir: folders above it traversable only, the dir itself the worker's alone. */
  prepareWorkDir(dir: string, who: WorkerIdentity): void {
    if (!this.enabled || who.uid === undefined) {
      mkdirSync(dir, { recursive: true });
      return;
    }
    for (let p = this.workersRoot, rest = dir.slice(this.workersRoot.length + 1).split('/'); rest.length > 1; ) {
      p = join(p, rest.shift()!);
      mkdirSync(p, { recursive: true, mode: 0o711 });
      chmodSync(p, 0o711);
    }
    // A leftover from an earlier worker (another uid) is never handed over.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, who.uid, who.gid ?? who.uid);
    chmodSync(dir, 0o700);
  }

  /**
   * Removes a gone worker's dir off the operator's thread: a synchronous removal held it for up to
   * 100 ms under a soak's churn (docs/performance.md). Each worker has a dir of its own and
   * prepareWorkDir clears a leftover, so nothing waits for this; a failure is only logged.
   */
  removeWorkDir(dir: string): Promise<void> {
    return rm(dir, { recursive: true, force: true }).catch((err: unknown) => this.o.log?.(`cannot remove ${dir}: ${(err as Error).message}`));
  }

  /** Removes the private workers folder (at shutdown, after every worker stopped). */
  close(): void {
    if (this.enabled) rmSync(this.workersRoot, { recursive: true, force: true });
  }

  private readTable(): Record<string, number> {
    const file = join(this.o.dataDir, UID_TABLE);
    if (!existsSync(file)) return {};
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    } catch (err) {
      this.o.log?.(`cannot read ${file}: ${(err as Error).message}; functions get their uids again`);
      return {};
    }
  }

  private writeTable(): void {
    const file = join(this.o.dataDir, UID_TABLE);
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(this.uids!.toJSON(), null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
}

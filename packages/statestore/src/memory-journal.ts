/**
 * The memory driver's append-only journal (docs/state.md, "Durability of the memory driver").
 *
 * One JSON object per line. The file always starts with a header line written by a compaction:
 *
 *   {"t":"hdr","magic":"orrery-memory-state/1","next":42}     next version to hand out
 *   {"t":"set","ns":"default","ks":"cart","k":"a","ver":7,"exp":null,"v":"{\"n\":1}"}
 *   {"t":"del","ns":"default","ks":"cart","k":"a"}
 *   {"t":"dks","ns":"default","ks":"cart"}                     deleteKeyspace
 *
 * Change feed (docs/state.md "Change feed"): a mutation's records carry the number of the change
 * they make, so the feed's numbering survives a restart — `"seq"` on `set`, and on `del` also
 * `"op"` (`delete` or `expire`) and `"ver"` (the version removed). A set replacing an expired
 * row is journaled as `del` (op expire) + `set`; a keyspace deletion as one `del` per row, then
 * `dks`. Compaction writes each keyspace's feed as one `feed` line (`head`, `low`) followed by
 * its retained changes as `chg` lines (`seq`, `k`, `op`, `ver`, `at`, and `v` for a set):
 *
 *   {"t":"feed","ns":"default","ks":"cart","head":12,"low":2}
 *   {"t":"chg","ns":"default","ks":"cart","seq":3,"k":"a","op":"set","ver":7,"at":1700000000000,"v":"1"}
 *
 * Retention (statesvc's sweeper) appends `{"t":"low","ns":…,"ks":…,"low":6}`: the changes up to 6
 * are pruned. Records without `seq` (journals written before the feed existed) make no change events.
 * Changes replayed from `set`/`del` lines are dated at the replay (they carry no time).
 *
 * Idempotent writes (docs/state.md "Idempotent writes"): the outcome of a write sent with
 * `Idempotency-Key` rides on the very `set` or `del` line that makes the write, as `"idem"`
 * (`k` the key, `h` the request digest, `exp` when it is forgotten, `st` the HTTP status, `res`
 * the result, `ver` the version written or null), so a replay never finds one without the
 * other. An outcome that changed nothing (a refused precondition, a delete of a missing key)
 * and every retained outcome in a snapshot is a line of its own:
 *
 *   {"t":"idem","ns":"default","ks":"cart","idem":{"k":"a1","h":"…","exp":1700086400000,"st":412,"res":"version_conflict","ver":null}}
 *
 * A recorded read (docs/state.md "Recorded reads") changes nothing, so it is always an `idem`
 * line of its own: `res` `found` with the value it read as `v`, its version as `ver` and its
 * deadline as `vexp` (epoch ms or null), or `missing` (st 404) when the key was absent.
 * Journals written before recorded reads have neither field and read as before.
 *
 * Fencing (docs/state.md "Fencing"): a claimed fence is `{"t":"fen","ns":…,"ks":…,"k":"a","f":57}`
 * (the key's current fence; a snapshot writes one per fenced key). Fences come from the version
 * counter, so a replay raises the next version above every `f` too; `dks` drops the keyspace's fences.
 *
 * Every mutation is appended with a synchronous write(2) on an fd opened O_APPEND before the
 * driver's call resolves, so a process crash (kill -9) after an acknowledged write loses nothing:
 * the data is in the kernel's page cache. The file is fdatasync'ed every `fsyncIntervalMs`
 * (default 1 s, off the event loop) when something was written, so a power loss or kernel crash
 * may lose up to about the last second of acknowledged writes (Redis `appendfsync everysec`).
 *
 * Replay tolerates one thing only: an incomplete final record (no trailing newline: the write
 * a crash cut short). Any complete line that is not a valid record fails loudly, naming the file,
 * line and byte offset, and the file is left untouched.
 *
 * Compaction writes a fresh snapshot (header + one `set` per live row) to `<file>.tmp`, fsyncs it,
 * renames it over the journal and fsyncs the directory. It runs on open and, while running, once
 * the journal has grown past max(`compactMinBytes`, 2 × the last snapshot).
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { StateStoreError } from './errors.ts';

export const JOURNAL_MAGIC = 'orrery-memory-state/1';
/** File name of the journal inside a memory driver's data directory. */
export const MEMORY_JOURNAL_FILE = 'memory-state.journal';
export const DEFAULT_FSYNC_INTERVAL_MS = 1000;
export const DEFAULT_COMPACT_MIN_BYTES = 64 * 1024 * 1024;

export interface SetRecord {
  t: 'set';
  ns: string;
  ks: string;
  k: string;
  /** The value's JSON text, as stored. */
  v: string;
  ver: number;
  /** Epoch ms, or null when the key never expires. */
  exp: number | null;
  /** The change's number in the keyspace's feed (absent in snapshots and older journals). */
  seq?: number;
  /** The outcome of the idempotent write this line makes. */
  idem?: IdempotencyFields;
}
export interface DeleteRecord {
  t: 'del';
  ns: string;
  ks: string;
  k: string;
  /** With `op` and `ver`: the change's number (absent in older journals). */
  seq?: number;
  op?: 'delete' | 'expire';
  /** The version removed. */
  ver?: number;
  /** The outcome of the idempotent delete this line makes. */
  idem?: IdempotencyFields;
}
/** A keyspace's feed counters (compaction). */
export interface FeedRecord {
  t: 'feed';
  ns: string;
  ks: string;
  head: number;
  low: number;
}
/** The feed's changes up to `low` were pruned (retention). */
export interface FeedLowRecord {
  t: 'low';
  ns: string;
  ks: string;
  low: number;
}
/** One retained change (compaction). */
export interface ChangeLineRecord {
  t: 'chg';
  ns: string;
  ks: string;
  seq: number;
  k: string;
  op: 'set' | 'delete' | 'expire';
  ver: number;
  at: number;
  v?: string;
}
/** A stored idempotency outcome (see the header comment). */
export interface IdempotencyFields {
  k: string;
  h: string;
  exp: number;
  st: number;
  /** A write's result, or `found` (a recorded read of a live key; `missing` is also a read of an absent one). */
  res: 'ok' | 'version_conflict' | 'deleted' | 'missing' | 'found';
  ver: number | null;
  /** Only with `found`: the value text the read found. */
  v?: string;
  /** Only with `found`: that entry's deadline, epoch ms, or null when it never expires. */
  vexp?: number | null;
}
/** An outcome that changed nothing, or a retained one in a snapshot. */
export interface IdempotencyRecord {
  t: 'idem';
  ns: string;
  ks: string;
  idem: IdempotencyFields;
}
/** A key's current fence (a claim, or a snapshot). */
export interface FenceRecord {
  t: 'fen';
  ns: string;
  ks: string;
  k: string;
  f: number;
}
export interface DeleteKeyspaceRecord {
  t: 'dks';
  ns: string;
  ks: string;
}
export type JournalRecord = SetRecord | DeleteRecord | DeleteKeyspaceRecord | FeedRecord | FeedLowRecord | ChangeLineRecord | IdempotencyRecord | FenceRecord;

const q = JSON.stringify;

/** One `set` line, newline included. Built by concatenation: this runs on every write. */
export const encodeSet = (ns: string, ks: string, k: string, v: string, ver: number, exp: number | null, seq?: number): string =>
  `{"t":"set","ns":${q(ns)},"ks":${q(ks)},"k":${q(k)},"ver":${ver},"exp":${exp === null ? 'null' : exp}${seq === undefined ? '' : `,"seq":${seq}`},"v":${q(v)}}\n`;
/** A `del` line; with `change`, the feed change it makes (`seq`, `op`, the version removed). */
export const encodeDelete = (ns: string, ks: string, k: string, change?: { seq: number; op: 'delete' | 'expire'; ver: number }): string =>
  change === undefined
    ? `{"t":"del","ns":${q(ns)},"ks":${q(ks)},"k":${q(k)}}\n`
    : `{"t":"del","ns":${q(ns)},"ks":${q(ks)},"k":${q(k)},"seq":${change.seq},"op":"${change.op}","ver":${change.ver}}\n`;
export const encodeFeedLow = (ns: string, ks: string, low: number): string => `{"t":"low","ns":${q(ns)},"ks":${q(ks)},"low":${low}}\n`;
export const encodeFeed = (ns: string, ks: string, head: number, low: number): string => `{"t":"feed","ns":${q(ns)},"ks":${q(ks)},"head":${head},"low":${low}}\n`;
export const encodeChange = (ns: string, ks: string, c: { seq: number; key: string; op: string; version: number; at: number; value?: string }): string =>
  `{"t":"chg","ns":${q(ns)},"ks":${q(ks)},"seq":${c.seq},"k":${q(c.key)},"op":"${c.op}","ver":${c.version},"at":${c.at}${c.value === undefined ? '' : `,"v":${q(c.value)}`}}\n`;
const encodeIdemFields = (f: IdempotencyFields): string =>
  `{"k":${q(f.k)},"h":${q(f.h)},"exp":${f.exp},"st":${f.st},"res":"${f.res}","ver":${f.ver === null ? 'null' : f.ver}${f.v === undefined ? '' : `,"v":${q(f.v)},"vexp":${f.vexp ?? 'null'}`}}`;
/** `lines` (ending in a `set` or `del` line) with the outcome added to that last line: one record. */
export const withIdempotency = (lines: string, f: IdempotencyFields): string => `${lines.slice(0, -2)},"idem":${encodeIdemFields(f)}}\n`;
export const encodeIdempotency = (ns: string, ks: string, f: IdempotencyFields): string => `{"t":"idem","ns":${q(ns)},"ks":${q(ks)},"idem":${encodeIdemFields(f)}}\n`;
export const encodeFence = (ns: string, ks: string, k: string, f: number): string => `{"t":"fen","ns":${q(ns)},"ks":${q(ks)},"k":${q(k)},"f":${f}}\n`;
export const encodeDeleteKeyspace = (ns: string, ks: string): string => `{"t":"dks","ns":${q(ns)},"ks":${q(ks)}}\n`;
const encodeHeader = (next: number): string => `{"t":"hdr","magic":"${JOURNAL_MAGIC}","next":${next}}\n`;

export class JournalCorruptError extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
    readonly offset: number,
    reason: string,
  ) {
    super(
      `memory state journal ${path} is corrupt at line ${line} (byte offset ${offset}): ${reason}. ` +
        `Refusing to start rather than drop the records after it. To recover what precedes it, keep a copy and truncate the file at byte ${offset} ` +
        `(e.g. truncate -s ${offset} '${path}'); the records from that line on are lost.`,
    );
    this.name = 'JournalCorruptError';
  }
}

export interface ReplayResult {
  /** False when the file did not exist. */
  existed: boolean;
  /** The header's next version (1 when the file did not exist). */
  next: number;
  /** Records replayed, header excluded. */
  records: number;
  /** Bytes of an incomplete final record that were ignored (0 = clean end). */
  tornBytes: number;
}

const isStr = (x: unknown): x is string => typeof x === 'string';
const isVersion = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const CHANGE_OPS = new Set(['set', 'delete', 'expire']);
const IDEM_RESULTS = new Set(['ok', 'version_conflict', 'deleted', 'missing', 'found']);

function idempotencyProblem(f: unknown): string | undefined {
  if (typeof f !== 'object' || f === null) return 'idem must be an object';
  const o = f as Record<string, unknown>;
  if (!isStr(o.k) || !isStr(o.h) || typeof o.exp !== 'number' || !Number.isFinite(o.exp) || !isCount(o.st) || !IDEM_RESULTS.has(o.res as string)) {
    return 'idem needs k, h, exp, st and res (ok, version_conflict, deleted, missing or found)';
  }
  if (o.ver !== null && !isVersion(o.ver)) return 'idem.ver must be null or a positive integer';
  if ((o.res === 'found') !== isStr(o.v)) return 'idem carries v (the value a recorded read found) exactly when res is found';
  if (o.res === 'found' && (!isVersion(o.ver) || !(o.vexp === null || (typeof o.vexp === 'number' && Number.isFinite(o.vexp))))) {
    return 'a found idem needs a positive integer ver and vexp null or a number';
  }
  return undefined;
}

function parseRecord(line: string): JournalRecord | string {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (typeof r !== 'object' || r === null) return 'not a JSON object';
  const o = r as Record<string, unknown>;
  if (!isStr(o.ns) || !isStr(o.ks)) return 'missing namespace or keyspace';
  switch (o.t) {
    case 'set':
      if (!isStr(o.k) || !isStr(o.v) || !isVersion(o.ver)) return 'a set record needs k, v and a positive integer ver';
      if (o.exp !== null && !(typeof o.exp === 'number' && Number.isFinite(o.exp))) return 'exp must be null or a number';
      if (o.seq !== undefined && !isVersion(o.seq)) return 'seq must be a positive integer';
      if (o.idem !== undefined) return idempotencyProblem(o.idem) ?? (o as unknown as SetRecord);
      return o as unknown as SetRecord;
    case 'del':
      if (!isStr(o.k)) return 'a del record needs k';
      if (o.seq !== undefined && (!isVersion(o.seq) || (o.op !== 'delete' && o.op !== 'expire') || !isVersion(o.ver))) {
        return 'a del record with seq needs a positive integer seq and ver and op delete or expire';
      }
      if (o.idem !== undefined) return idempotencyProblem(o.idem) ?? (o as unknown as DeleteRecord);
      return o as unknown as DeleteRecord;
    case 'idem':
      return idempotencyProblem(o.idem) ?? (o as unknown as IdempotencyRecord);
    case 'dks':
      return o as unknown as DeleteKeyspaceRecord;
    case 'fen':
      if (!isStr(o.k) || !isVersion(o.f)) return 'a fen record needs k and a positive integer f';
      return o as unknown as FenceRecord;
    case 'feed':
      if (!isCount(o.head) || !isCount(o.low) || o.low > o.head) return 'a feed record needs integers 0 <= low <= head';
      return o as unknown as FeedRecord;
    case 'low':
      if (!isCount(o.low)) return 'a low record needs a non-negative integer low';
      return o as unknown as FeedLowRecord;
    case 'chg':
      if (!isVersion(o.seq) || !isStr(o.k) || !CHANGE_OPS.has(o.op as string) || !isVersion(o.ver) || !(typeof o.at === 'number' && Number.isFinite(o.at))) {
        return 'a chg record needs seq, k, op (set, delete or expire), ver and at';
      }
      if ((o.op === 'set') !== isStr(o.v)) return 'a chg record carries v exactly when op is set';
      return o as unknown as ChangeLineRecord;
    default:
      return `unknown record type ${q(o.t)}`;
  }
}

/**
 * Reads a journal and hands every record to `apply`, in order. A missing file is an empty
 * journal. Throws JournalCorruptError on any complete line that is not a valid record.
 */
export function replayJournal(path: string, apply: (rec: JournalRecord) => void): ReplayResult {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { existed: false, next: 1, records: 0, tornBytes: 0 };
    throw err;
  }
  let next = 1;
  let records = 0;
  let lineNo = 0;
  let offset = 0; // byte offset of the current line's start
  let carry: Buffer[] = [];
  let carryBytes = 0;
  const handle = (bytes: Buffer) => {
    lineNo++;
    const line = bytes.toString('utf8');
    if (lineNo === 1) {
      let h: Record<string, unknown> | undefined;
      try {
        h = JSON.parse(line);
      } catch {
        /* reported below */
      }
      if (!h || h.t !== 'hdr' || h.magic !== JOURNAL_MAGIC || !isVersion(h.next)) {
        throw new JournalCorruptError(path, 1, 0, `the first line is not a ${JOURNAL_MAGIC} header (is this file a memory state journal?)`);
      }
      next = h.next;
    } else {
      const rec = parseRecord(line);
      if (typeof rec === 'string') throw new JournalCorruptError(path, lineNo, offset, rec);
      apply(rec);
      records++;
    }
    offset += bytes.length + 1;
  };
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        if (carryBytes > 0) {
          carry.push(piece);
          handle(Buffer.concat(carry));
          carry = [];
          carryBytes = 0;
        } else handle(piece);
        start = nl + 1;
      }
      if (start < n) {
        carry.push(Buffer.from(chunk.subarray(start))); // copy: buf is reused
        carryBytes += n - start;
      }
    }
  } finally {
    closeSync(fd);
  }
  if (lineNo === 0 && carryBytes > 0) {
    // Not one complete line: never a journal this driver wrote (its header is renamed in whole).
    throw new JournalCorruptError(path, 1, 0, `no complete line in ${carryBytes} bytes (is this file a memory state journal?)`);
  }
  return { existed: true, next, records, tornBytes: carryBytes };
}

export interface JournalOptions {
  /** fdatasync the journal this often when written to; 0 = never (OS write-back only). Default 1000. */
  fsyncIntervalMs?: number;
  /** Compact at run time once the journal exceeds max(this, 2 × the last snapshot). Default 64 MiB. */
  compactMinBytes?: number;
  /** Reports background fsync failures. */
  log?: (msg: string) => void;
}

function writeAll(fd: number, data: Buffer): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `lines` (each ending in a newline) in chunks of about 1 MiB. */
function writeLines(fd: number, header: string, lines: Iterable<string>): number {
  let size = 0;
  let pending = header;
  for (const line of lines) {
    pending += line;
    if (pending.length >= 1 << 20) {
      const b = Buffer.from(pending, 'utf8');
      writeAll(fd, b);
      size += b.length;
      pending = '';
    }
  }
  const b = Buffer.from(pending, 'utf8');
  writeAll(fd, b);
  return size + b.length;
}

/** An open journal: appends records and compacts. Created by `MemoryJournal.create` after a replay. */
export class MemoryJournal {
  readonly path: string;
  private fd: number;
  private size_: number;
  private threshold: number;
  private readonly compactMinBytes: number;
  private dirty = false;
  private syncing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout | undefined;
  private broken: Error | undefined;
  private closed = false;
  private readonly log: (msg: string) => void;

  private constructor(path: string, fd: number, size: number, opts: JournalOptions) {
    this.path = path;
    this.fd = fd;
    this.size_ = size;
    this.compactMinBytes = opts.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES;
    this.threshold = Math.max(this.compactMinBytes, 2 * size);
    this.log = opts.log ?? (() => {});
    const every = opts.fsyncIntervalMs ?? DEFAULT_FSYNC_INTERVAL_MS;
    if (every > 0) {
      this.timer = setInterval(() => this.syncInBackground(), every);
      this.timer.unref();
    }
  }

  /** Writes a snapshot (the compaction) at `path` and opens it for appending. */
  static create(path: string, next: number, lines: Iterable<string>, opts: JournalOptions = {}): MemoryJournal {
    const size = MemoryJournal.writeSnapshot(path, next, lines);
    return new MemoryJournal(path, openSync(path, 'a', 0o600), size, opts);
  }

  private static writeSnapshot(path: string, next: number, lines: Iterable<string>): number {
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    let size: number;
    try {
      size = writeLines(fd, encodeHeader(next), lines);
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    closeSync(fd);
    renameSync(tmp, path);
    fsyncDir(dirname(path));
    return size;
  }

  /** Bytes in the journal file. */
  get size(): number {
    return this.size_;
  }

  /**
   * Appends one or more encoded records with one synchronous write. Returns true when the
   * journal has grown enough to be worth compacting. On a failed write the file is cut back to
   * where it was, so no half record is left in the middle, and the caller's change must not be applied.
   */
  append(lines: string): boolean {
    if (this.broken || this.closed) throw this.unusable();
    const data = Buffer.from(lines, 'utf8');
    try {
      writeAll(this.fd, data);
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.size_);
      } catch (truncErr) {
        this.broken = truncErr as Error;
      }
      throw new StateStoreError('internal', `memory state journal ${this.path}: write failed (${(err as Error).message}); the change was not applied`);
    }
    this.size_ += data.length;
    this.dirty = true;
    return this.size_ > this.threshold;
  }

  private unusable(): StateStoreError {
    if (this.closed) return new StateStoreError('internal', `memory state journal ${this.path} is closed`);
    return new StateStoreError('internal', `memory state journal ${this.path} cannot be written since a failed write could not be undone (${this.broken!.message}); restart statesvc`);
  }

  /** Replaces the journal with a snapshot of `lines` (the live rows as `set` records). */
  compact(next: number, lines: Iterable<string>): void {
    if (this.broken || this.closed) throw this.unusable();
    let size: number;
    try {
      size = MemoryJournal.writeSnapshot(this.path, next, lines);
    } catch (err) {
      this.threshold = Math.max(this.threshold, 2 * this.size_); // not again on the very next write
      throw err;
    }
    const old = this.fd;
    this.fd = openSync(this.path, 'a', 0o600);
    this.size_ = size;
    this.threshold = Math.max(this.compactMinBytes, 2 * size);
    this.dirty = false; // the snapshot was fsynced
    // A background fdatasync may still use the old fd: close it once that is done.
    if (this.syncing) void this.syncing.then(() => closeSync(old));
    else closeSync(old);
  }

  private syncInBackground(): void {
    if (!this.dirty || this.syncing || this.closed) return;
    this.dirty = false;
    const fd = this.fd;
    this.syncing = new Promise<void>((resolve) => {
      fdatasync(fd, (err) => {
        this.syncing = null;
        if (err) {
          this.dirty = true;
          this.log(`memory state journal ${this.path}: fdatasync failed: ${err.message}`);
        }
        resolve();
      });
    });
  }

  /** Waits for a background sync, fdatasyncs what is left and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.syncing) await this.syncing;
    try {
      if (this.dirty && !this.broken) fdatasyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
  }
}

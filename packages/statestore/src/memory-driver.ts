import { quotaKeys, quotaNamespaceBytes, versionConflict } from './errors.ts';
import { compareKeys, decodeCursor, encodeCursor, listLimit } from './key-order.ts';
import { encodeDelete, encodeDeleteKeyspace, encodeSet, MemoryJournal, replayJournal, type JournalOptions, type JournalRecord } from './memory-journal.ts';
import type { Entry, ListOptions, ListResult, NamespaceUsage, Scope, SetOptions, StateDriver, Usage, WriteBudget } from './types.ts';

interface Row extends Entry {
  bytes: number;
}

interface Keyspace {
  rows: Map<string, Row>;
  /** Sorted key list, rebuilt lazily when a key is added or removed (not on update). */
  sorted: string[] | null;
}

export interface MemoryDriverOptions {
  now?: () => number;
  /**
   * Keep the data in an append-only journal at `path` (see memory-journal.ts): replayed and
   * compacted here, appended to before every mutation resolves. Without it nothing is written.
   */
  journal?: JournalOptions & { path: string };
  /** Called once by close(), after the journal is closed (openDriver releases the data dir lock). */
  onClose?: () => void;
}

/** What opening a journal found, for the service's log. */
export interface JournalOpenReport {
  path: string;
  /** Records replayed (header excluded). */
  records: number;
  /** Live rows kept after dropping expired ones. */
  rows: number;
  /** Bytes of an incomplete final record that were ignored. */
  tornBytes: number;
  /** The next version to be handed out. */
  nextVersion: number;
}

/**
 * The embedded driver. Every operation runs synchronously inside one call, so the budget
 * check and the write are trivially one step (the single-threaded loop is the store mutex).
 * With a journal, each mutation is appended (a synchronous write) after its checks pass and
 * before memory changes, so a failed append leaves the state as it was.
 */
export class MemoryDriver implements StateDriver {
  readonly name = 'memory' as const;
  private readonly namespaces_ = new Map<string, Map<string, Keyspace>>();
  private readonly nsBytes = new Map<string, number>();
  private nextVersion = 1;
  private readonly now: () => number;
  private readonly journal: MemoryJournal | undefined;
  private readonly onClose: (() => void) | undefined;
  private readonly journalLog: (msg: string) => void;
  private compactionQueued = false;
  private closed = false;
  /** Set when a journal was opened. */
  readonly journalReport: JournalOpenReport | undefined;

  constructor(opts: MemoryDriverOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.onClose = opts.onClose;
    this.journalLog = opts.journal?.log ?? (() => {});
    if (opts.journal) {
      const { path, ...journalOpts } = opts.journal;
      let maxVersion = 0;
      const replayed = replayJournal(path, (rec) => {
        if (rec.t === 'set' && rec.ver > maxVersion) maxVersion = rec.ver;
        this.applyRecord(rec);
      });
      // Versions continue above everything ever handed out, deleted and compacted keys included.
      this.nextVersion = Math.max(replayed.next, maxVersion + 1);
      const now = this.now();
      let rows = 0;
      for (const [namespace, ns] of this.namespaces_) {
        for (const [keyspace, ks] of ns) {
          for (const [key, row] of ks.rows) if (!this.live(row, now)) this.removeRow(namespace, ks, key, row);
          if (ks.rows.size === 0) ns.delete(keyspace);
          rows += ks.rows.size;
        }
        if (ns.size === 0) {
          this.namespaces_.delete(namespace);
          this.nsBytes.delete(namespace);
        }
      }
      this.journal = MemoryJournal.create(path, this.nextVersion, this.snapshotLines(now), journalOpts);
      this.journalReport = { path, records: replayed.records, rows, tornBytes: replayed.tornBytes, nextVersion: this.nextVersion };
    }
  }

  /** Replay: applies one journal record with no checks (they passed when it was written). */
  private applyRecord(rec: JournalRecord): void {
    const scope = { namespace: rec.ns, keyspace: rec.ks };
    if (rec.t === 'set') {
      const ks = this.keyspace(scope, true)!;
      const prev = ks.rows.get(rec.k);
      if (!prev) ks.sorted = null;
      const bytes = Buffer.byteLength(rec.v, 'utf8');
      ks.rows.set(rec.k, { value: rec.v, bytes, version: rec.ver, expiresAt: rec.exp });
      this.nsBytes.set(rec.ns, (this.nsBytes.get(rec.ns) ?? 0) - (prev?.bytes ?? 0) + bytes);
    } else if (rec.t === 'del') {
      const ks = this.keyspace(scope, false);
      const row = ks?.rows.get(rec.k);
      if (ks && row) this.removeRow(rec.ns, ks, rec.k, row);
    } else {
      this.dropKeyspace(scope);
    }
  }

  /** The live rows as `set` records. */
  private *snapshotLines(now: number): Generator<string> {
    for (const [namespace, ns] of this.namespaces_) {
      for (const [keyspace, ks] of ns) {
        for (const [key, row] of ks.rows) if (this.live(row, now)) yield encodeSet(namespace, keyspace, key, row.value, row.version, row.expiresAt);
      }
    }
  }

  /** Appends to the journal (only called when there is one); queues a compaction when it has grown. */
  private record(lines: string): void {
    if (this.journal!.append(lines) && !this.compactionQueued) {
      this.compactionQueued = true;
      setImmediate(() => {
        this.compactionQueued = false;
        if (this.closed) return;
        try {
          this.compactJournal();
        } catch (err) {
          // The journal stays as it was (complete); it is tried again after more growth.
          this.journalLog(`memory state journal ${this.journal!.path}: compaction failed: ${(err as Error).message}`);
        }
      });
    }
  }

  /** Rewrites the journal as a snapshot of the live rows now (also done on open). No-op without a journal. */
  compactJournal(): void {
    if (!this.journal) return;
    this.journal.compact(this.nextVersion, this.snapshotLines(this.now()));
  }

  private keyspace(scope: Pick<Scope, 'namespace' | 'keyspace'>, create: boolean): Keyspace | undefined {
    let ns = this.namespaces_.get(scope.namespace);
    if (!ns) {
      if (!create) return undefined;
      ns = new Map();
      this.namespaces_.set(scope.namespace, ns);
    }
    let ks = ns.get(scope.keyspace);
    if (!ks && create) {
      ks = { rows: new Map(), sorted: null };
      ns.set(scope.keyspace, ks);
    }
    return ks;
  }

  private live(row: Row | undefined, now: number): row is Row {
    return row !== undefined && (row.expiresAt === null || row.expiresAt > now);
  }

  private removeRow(namespace: string, ks: Keyspace, key: string, row: Row): void {
    ks.rows.delete(key);
    ks.sorted = null;
    this.nsBytes.set(namespace, (this.nsBytes.get(namespace) ?? 0) - row.bytes);
  }

  private purgeKeyspace(namespace: string, keyspace: string, ks: Keyspace, now: number): number {
    if (this.journal) return this.purgeJournaled(namespace, keyspace, ks, now);
    let n = 0;
    for (const [key, row] of ks.rows) {
      if (!this.live(row, now)) {
        this.removeRow(namespace, ks, key, row);
        n++;
      }
    }
    return n;
  }

  /** purgeKeyspace with a journal: the removals are recorded (one write) before they are made. */
  private purgeJournaled(namespace: string, keyspace: string, ks: Keyspace, now: number): number {
    let lines = '';
    const expired: Array<[string, Row]> = [];
    for (const [key, row] of ks.rows) {
      if (!this.live(row, now)) {
        expired.push([key, row]);
        lines += encodeDelete(namespace, keyspace, key);
      }
    }
    if (expired.length === 0) return 0;
    this.record(lines);
    for (const [key, row] of expired) this.removeRow(namespace, ks, key, row);
    return expired.length;
  }

  async get(scope: Scope, key: string): Promise<Entry | null> {
    const row = this.keyspace(scope, false)?.rows.get(key);
    if (!this.live(row, this.now())) return null;
    return { value: row.value, version: row.version, expiresAt: row.expiresAt };
  }

  async set(scope: Scope, key: string, value: string, opts: SetOptions = {}): Promise<{ version: number }> {
    return this.setCounted(scope, key, value, opts, { maxKeys: Infinity });
  }

  async setCounted(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget): Promise<{ version: number }> {
    const now = this.now();
    const ks = this.keyspace(scope, true)!;
    const old = ks.rows.get(key);
    const isLive = this.live(old, now);
    if (opts.ifVersion !== undefined) {
      if (opts.ifVersion === 0 ? isLive : !isLive || old.version !== opts.ifVersion) throw versionConflict(key, opts.ifVersion);
    }
    if (!old && ks.rows.size + 1 > budget.maxKeys) {
      // Expired keys stop counting at once: purge them before refusing.
      this.purgeKeyspace(scope.namespace, scope.keyspace, ks, now);
      if (ks.rows.size + 1 > budget.maxKeys) throw quotaKeys(budget.maxKeys);
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    const nsBudget = budget.namespaceByteBudget ?? 0;
    if (nsBudget > 0) {
      const after = (this.nsBytes.get(scope.namespace) ?? 0) - (old?.bytes ?? 0) + bytes;
      if (after > nsBudget) {
        for (const [name, other] of this.namespaces_.get(scope.namespace) ?? []) this.purgeKeyspace(scope.namespace, name, other, now);
        const current = ks.rows.get(key);
        if ((this.nsBytes.get(scope.namespace) ?? 0) - (current?.bytes ?? 0) + bytes > nsBudget) throw quotaNamespaceBytes(nsBudget);
      }
    }
    const prev = ks.rows.get(key);
    if (!prev) ks.sorted = null;
    const version = this.nextVersion;
    const expiresAt = opts.ttlMs && opts.ttlMs > 0 ? now + opts.ttlMs : null;
    // Journal first: if the append fails, nothing below runs and the write is refused.
    if (this.journal) this.record(encodeSet(scope.namespace, scope.keyspace, key, value, version, expiresAt));
    this.nextVersion++;
    ks.rows.set(key, { value, bytes, version, expiresAt });
    this.nsBytes.set(scope.namespace, (this.nsBytes.get(scope.namespace) ?? 0) - (prev?.bytes ?? 0) + bytes);
    return { version };
  }

  async delete(scope: Scope, key: string, opts: { ifVersion?: number } = {}): Promise<boolean> {
    const ks = this.keyspace(scope, false);
    const row = ks?.rows.get(key);
    if (!ks || !row) return false;
    const isLive = this.live(row, this.now());
    if (isLive && opts.ifVersion !== undefined && row.version !== opts.ifVersion) throw versionConflict(key, opts.ifVersion);
    if (this.journal) this.record(encodeDelete(scope.namespace, scope.keyspace, key));
    this.removeRow(scope.namespace, ks, key, row);
    return isLive;
  }

  async list(scope: Scope, opts: ListOptions = {}): Promise<ListResult> {
    const limit = listLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const ks = this.keyspace(scope, false);
    if (!ks) return { keys: [], cursor: '' };
    ks.sorted ??= [...ks.rows.keys()].sort(compareKeys);
    const sorted = ks.sorted;
    const prefix = opts.prefix ?? '';
    const start = after !== undefined && compareKeys(after, prefix) >= 0 ? after : prefix;
    // Binary search for the first key >= start (> start when resuming from a cursor).
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareKeys(sorted[mid]!, start);
      if (c < 0 || (c === 0 && start === after)) lo = mid + 1;
      else hi = mid;
    }
    const now = this.now();
    const keys: string[] = [];
    for (let i = lo; i < sorted.length; i++) {
      const key = sorted[i]!;
      if (!key.startsWith(prefix)) break;
      if (!this.live(ks.rows.get(key), now)) continue;
      if (keys.length === limit) return { keys, cursor: encodeCursor(keys[keys.length - 1]!) };
      keys.push(key);
    }
    return { keys, cursor: '' };
  }

  async usage(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<Usage> {
    const now = this.now();
    let keys = 0;
    let bytes = 0;
    for (const row of this.keyspace(scope, false)?.rows.values() ?? []) {
      if (this.live(row, now)) {
        keys++;
        bytes += row.bytes;
      }
    }
    return { keys, bytes };
  }

  async namespaceUsage(namespace: string): Promise<NamespaceUsage> {
    const keyspaces: NamespaceUsage['keyspaces'] = [];
    for (const keyspace of [...(this.namespaces_.get(namespace)?.keys() ?? [])].sort()) {
      const u = await this.usage({ namespace, keyspace });
      if (u.keys > 0) keyspaces.push({ keyspace, ...u });
    }
    return { keys: keyspaces.reduce((a, k) => a + k.keys, 0), bytes: keyspaces.reduce((a, k) => a + k.bytes, 0), keyspaces };
  }

  async namespaces(): Promise<string[]> {
    return [...this.namespaces_.keys()].sort();
  }

  async deleteKeyspace(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number> {
    if (!this.namespaces_.get(scope.namespace)?.has(scope.keyspace)) return 0;
    if (this.journal) this.record(encodeDeleteKeyspace(scope.namespace, scope.keyspace));
    return this.dropKeyspace(scope);
  }

  /** Removes a keyspace with its rows; returns how many were live. */
  private dropKeyspace(scope: Pick<Scope, 'namespace' | 'keyspace'>): number {
    const ns = this.namespaces_.get(scope.namespace);
    const ks = ns?.get(scope.keyspace);
    if (!ns || !ks) return 0;
    const now = this.now();
    let live = 0;
    let bytes = 0;
    for (const row of ks.rows.values()) {
      bytes += row.bytes;
      if (this.live(row, now)) live++;
    }
    ns.delete(scope.keyspace);
    this.nsBytes.set(scope.namespace, (this.nsBytes.get(scope.namespace) ?? 0) - bytes);
    // As on Postgres, a namespace without keyspaces is no longer listed.
    if (ns.size === 0) {
      this.namespaces_.delete(scope.namespace);
      this.nsBytes.delete(scope.namespace);
    }
    return live;
  }

  async sweepExpired(): Promise<number> {
    const now = this.now();
    let n = 0;
    for (const [namespace, ns] of this.namespaces_) for (const [keyspace, ks] of ns) n += this.purgeKeyspace(namespace, keyspace, ks, now);
    return n;
  }

  async metaCount(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number> {
    return this.keyspace(scope, false)?.rows.size ?? 0;
  }

  async ping(): Promise<void> {}

  /** Closes the journal (final fdatasync) when there is one; afterwards writes are refused. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.journal?.close();
    } finally {
      this.onClose?.();
    }
  }
}

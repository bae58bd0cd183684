import { idempotencyRecordBytes } from '@orrery/spec';
import { ChangeWatchers } from './change-watchers.ts';
import { fenced, idempotencyMismatch, quotaKeys, quotaNamespaceBytes, StateStoreError, versionConflict } from './errors.ts';
import { compareKeys, decodeCursor, encodeCursor, listLimit } from './key-order.ts';
import { MemoryFeed } from './memory-feed.ts';
import { MemoryIdempotency, outcomeBytes, outcomeFields, readOutcomeFields, type StoredOutcome } from './memory-idempotency.ts';
import {
  encodeDelete,
  encodeDeleteKeyspace,
  encodeFeedLow,
  encodeFence,
  encodeIdempotency,
  encodeSet,
  MemoryJournal,
  replayJournal,
  withIdempotency,
  type IdempotencyFields,
  type JournalOptions,
  type JournalRecord,
} from './memory-journal.ts';
import type {
  ChangeRecord,
  ChangeRetention,
  ChangesOptions,
  ChangesPage,
  ChangeWindow,
  DeleteOptions,
  Entry,
  FenceSummary,
  IdempotencyClaim,
  IdempotencyUsage,
  ListOptions,
  ListResult,
  NamespaceUsage,
  ReadOutcome,
  RecordBudget,
  Scope,
  SetOptions,
  StateDriver,
  Usage,
  WriteBudget,
  WriteOutcome,
} from './types.ts';

interface Row extends Entry {
  bytes: number;
}

interface Keyspace {
  rows: Map<string, Row>;
  /** Sorted key list, rebuilt lazily when a key is added or removed (not on update). */
  sorted: string[] | null;
}

type NsKs = Pick<Scope, 'namespace' | 'keyspace'>;
/** Feeds and watchers are keyed by `namespace/keyspace` ('/' is in neither name). */
const feedId = (namespace: string, keyspace: string) => `${namespace}/${keyspace}`;

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

/** The stored outcome of an earlier request with the claim's key: replayed, or a mismatch. */
function replay(prior: StoredOutcome, claim: IdempotencyClaim): WriteOutcome {
  if (prior.h !== claim.requestHash || prior.res === 'found') throw idempotencyMismatch(claim.key);
  return { status: prior.st, result: prior.res, version: prior.ver, replayed: true };
}

/** The record of an earlier recorded read with the claim's key: replayed, or a mismatch (also a write's outcome under that key). */
function replayRead(prior: StoredOutcome, claim: IdempotencyClaim): ReadOutcome {
  if (prior.h !== claim.requestHash) throw idempotencyMismatch(claim.key);
  if (prior.res === 'found' && prior.v !== undefined && prior.ver !== null) {
    return { status: 200, entry: { value: prior.v, version: prior.ver, expiresAt: prior.vexp ?? null }, replayed: true };
  }
  if (prior.res === 'missing' && prior.st === 404) return { status: 404, entry: null, replayed: true };
  throw idempotencyMismatch(claim.key);
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
  private compacting = false;
  private closed = false;
  /** Change feeds by feedId; they outlive their keyspace's rows (numbers are never reused). */
  private readonly feeds = new Map<string, MemoryFeed>();
  private readonly watchers = new ChangeWatchers();
  /** Current fence per key, by feedId then key (docs/state.md "Fencing"); removed only with the keyspace. */
  private readonly fences = new Map<string, Map<string, number>>();
  /** Outcomes of writes sent with `Idempotency-Key` (docs/state.md "Idempotent writes"). */
  private readonly idem = new MemoryIdempotency();
  /** Set when a journal was opened. */
  readonly journalReport: JournalOpenReport | undefined;

  constructor(opts: MemoryDriverOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.onClose = opts.onClose;
    this.journalLog = opts.journal?.log ?? (() => {});
    if (opts.journal) {
      const { path, ...journalOpts } = opts.journal;
      let maxVersion = 0;
      const replayedAt = this.now();
      const replayed = replayJournal(path, (rec) => {
        if (rec.t === 'set' && rec.ver > maxVersion) maxVersion = rec.ver;
        if (rec.t === 'fen' && rec.f > maxVersion) maxVersion = rec.f;
        if (rec.t === 'idem') return this.idem.put(rec.ns, rec.ks, rec.idem);
        this.applyRecord(rec, replayedAt);
        // The outcome of an idempotent write rides on the line that made it (one record).
        if ((rec.t === 'set' || rec.t === 'del') && rec.idem) this.idem.put(rec.ns, rec.ks, rec.idem);
      });
      this.idem.purge(this.now());
      for (const feed of this.feeds.values()) feed.sealRestored();
      // Versions continue above everything ever handed out, deleted and compacted keys included.
      this.nextVersion = Math.max(replayed.next, maxVersion + 1);
      const now = this.now();
      let rows = 0;
      for (const [namespace, ns] of this.namespaces_) {
        for (const [keyspace, ks] of ns) {
          // Rows that expired while statesvc was down leave with their `expire` changes (kept by the snapshot below).
          for (const [key, row] of this.expiredRows(ks, now)) {
            this.removeRow(namespace, ks, key, row);
            const feed = this.feed(namespace, keyspace);
            feed.append({ seq: feed.head + 1, key, op: 'expire', version: row.version, at: now });
          }
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
  private applyRecord(rec: JournalRecord, at: number): void {
    const scope = { namespace: rec.ns, keyspace: rec.ks };
    if (rec.t === 'set') {
      const ks = this.keyspace(scope, true)!;
      const prev = ks.rows.get(rec.k);
      if (!prev) ks.sorted = null;
      const bytes = Buffer.byteLength(rec.v, 'utf8');
      ks.rows.set(rec.k, { value: rec.v, bytes, version: rec.ver, expiresAt: rec.exp });
      this.nsBytes.set(rec.ns, (this.nsBytes.get(rec.ns) ?? 0) - (prev?.bytes ?? 0) + bytes);
      if (rec.seq !== undefined) this.feed(rec.ns, rec.ks).appendReplayed({ seq: rec.seq, key: rec.k, op: 'set', version: rec.ver, value: rec.v, at });
    } else if (rec.t === 'del') {
      const ks = this.keyspace(scope, false);
      const row = ks?.rows.get(rec.k);
      if (ks && row) this.removeRow(rec.ns, ks, rec.k, row);
      if (rec.seq !== undefined) this.feed(rec.ns, rec.ks).appendReplayed({ seq: rec.seq, key: rec.k, op: rec.op!, version: rec.ver!, at });
    } else if (rec.t === 'dks') {
      this.dropKeyspace(scope);
      this.fences.delete(feedId(rec.ns, rec.ks));
      this.idem.dropValueCopies(rec.ns, rec.ks);
    } else if (rec.t === 'fen') {
      this.fenceMap(rec.ns, rec.ks).set(rec.k, rec.f);
    } else if (rec.t === 'feed') {
      this.feeds.set(feedId(rec.ns, rec.ks), new MemoryFeed(rec.head, rec.low));
    } else if (rec.t === 'low') {
      this.feeds.get(feedId(rec.ns, rec.ks))?.pruneTo(rec.low);
    } else if (rec.t === 'chg') {
      const c: ChangeRecord = { seq: rec.seq, key: rec.k, op: rec.op, version: rec.ver, at: rec.at };
      if (rec.v !== undefined) c.value = rec.v;
      this.feed(rec.ns, rec.ks).restore(c);
    }
  }

  /** The live rows as `set` records, then every feed with its retained changes. */
  private *snapshotLines(now: number): Generator<string> {
    for (const [namespace, ns] of this.namespaces_) {
      for (const [keyspace, ks] of ns) {
        for (const [key, row] of ks.rows) if (this.live(row, now)) yield encodeSet(namespace, keyspace, key, row.value, row.version, row.expiresAt);
      }
    }
    for (const [id, feed] of this.feeds) {
      const slash = id.indexOf('/');
      yield* feed.snapshotLines(id.slice(0, slash), id.slice(slash + 1));
    }
    yield* this.idem.snapshotLines(now);
    for (const [id, keys] of this.fences) {
      const slash = id.indexOf('/');
      for (const [key, f] of keys) yield encodeFence(id.slice(0, slash), id.slice(slash + 1), key, f);
    }
  }

  private fenceMap(namespace: string, keyspace: string): Map<string, number> {
    const id = feedId(namespace, keyspace);
    let m = this.fences.get(id);
    if (!m) {
      m = new Map();
      this.fences.set(id, m);
    }
    return m;
  }

  /** Refuses a write whose fence is not the key's current one; no fence = not checked. */
  private checkFence(scope: NsKs, key: string, fence: number | undefined): void {
    if (fence === undefined) return;
    const current = this.fences.get(feedId(scope.namespace, scope.keyspace))?.get(key) ?? 0;
    if (fence !== current) throw fenced(key, fence, current);
  }

  /** A new fence from the version counter: journaled before it is handed out, so a restart never reissues it. */
  async claimFence(scope: NsKs, key: string): Promise<number> {
    const f = this.nextVersion;
    if (this.journal) this.record(encodeFence(scope.namespace, scope.keyspace, key, f));
    this.nextVersion++;
    this.fenceMap(scope.namespace, scope.keyspace).set(key, f);
    return f;
  }

  async fenceSummary(scope: NsKs, limit: number): Promise<FenceSummary> {
    const keys = this.fences.get(feedId(scope.namespace, scope.keyspace));
    if (!keys) return { keys: 0, newest: [] };
    const newest = [...keys].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([key, fence]) => ({ key, fence }));
    return { keys: keys.size, newest };
  }

  /** The keyspace's feed, created empty on first use. */
  private feed(namespace: string, keyspace: string): MemoryFeed {
    const id = feedId(namespace, keyspace);
    let f = this.feeds.get(id);
    if (!f) {
      f = new MemoryFeed();
      this.feeds.set(id, f);
    }
    return f;
  }

  /** Appends changes already journaled (numbered from the feed's head) and wakes the keyspace's watchers. */
  private publish(namespace: string, keyspace: string, feed: MemoryFeed, changes: ChangeRecord[]): void {
    for (const c of changes) feed.append(c);
    const id = feedId(namespace, keyspace);
    if (changes.length > 0) this.watchers.wakeSoon(id);
  }

  /** A keyspace's expired rows, in key order (the order their `expire` changes take). */
  private expiredRows(ks: Keyspace, now: number): Array<[string, Row]> {
    const out: Array<[string, Row]> = [];
    for (const entry of ks.rows) if (!this.live(entry[1], now)) out.push(entry);
    return out.sort((a, b) => compareKeys(a[0], b[0]));
  }

  /** Appends to the journal (only called when there is one); queues a compaction when it has grown. */
  private record(lines: string): void {
    if (this.journal!.append(lines) && !this.compactionQueued && !this.compacting) {
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

  /**
   * Rewrites the journal as a snapshot of the live rows and the feeds now (also done on open).
   * Expired rows are swept first (journaled, with their `expire` changes): the snapshot leaves
   * them out, and a restart must not lose the changes their removal makes. No-op without a journal.
   */
  compactJournal(): void {
    if (!this.journal) return;
    this.compacting = true;
    try {
      const now = this.now();
      for (const [namespace, ns] of this.namespaces_) for (const [keyspace, ks] of ns) this.purgeKeyspace(namespace, keyspace, ks, now);
      this.journal.compact(this.nextVersion, this.snapshotLines(now));
    } finally {
      this.compacting = false;
    }
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

  /**
   * Removes a keyspace's expired rows, each with an `expire` change (in key order). With a
   * journal the removals are recorded (one write) before they are made.
   */
  private purgeKeyspace(namespace: string, keyspace: string, ks: Keyspace, now: number): number {
    const expired = this.expiredRows(ks, now);
    if (expired.length === 0) return 0;
    const feed = this.feed(namespace, keyspace);
    const changes: ChangeRecord[] = [];
    let lines = '';
    for (const [key, row] of expired) {
      const c: ChangeRecord = { seq: feed.head + changes.length + 1, key, op: 'expire', version: row.version, at: now };
      changes.push(c);
      if (this.journal) lines += encodeDelete(namespace, keyspace, key, { seq: c.seq, op: 'expire', ver: row.version });
    }
    if (this.journal) this.record(lines);
    for (const [key, row] of expired) this.removeRow(namespace, ks, key, row);
    this.publish(namespace, keyspace, feed, changes);
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
    return this.setSync(scope, key, value, opts, budget, undefined);
  }

  /**
   * setCounted in one synchronous step. With `claim` (an idempotent write) its outcome is part
   * of the write: on the same journal line, counted in the byte budget, stored after it.
   */
  private setSync(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget, claim: IdempotencyClaim | undefined): { version: number } {
    this.checkFence(scope, key, opts.fence);
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
      // Retained idempotency outcomes count too (bytes, never keys), this write's own included.
      const outcomes = () => this.idem.bytes(scope.namespace) + (claim ? idempotencyRecordBytes(claim.key) : 0);
      const after = (this.nsBytes.get(scope.namespace) ?? 0) - (old?.bytes ?? 0) + bytes + outcomes();
      if (after > nsBudget) {
        this.purgeNamespace(scope.namespace, now);
        const current = ks.rows.get(key);
        if ((this.nsBytes.get(scope.namespace) ?? 0) - (current?.bytes ?? 0) + bytes + outcomes() > nsBudget) throw quotaNamespaceBytes(nsBudget);
      }
    }
    const prev = ks.rows.get(key);
    if (!prev) ks.sorted = null;
    const version = this.nextVersion;
    const expiresAt = opts.ttlMs && opts.ttlMs > 0 ? now + opts.ttlMs : null;
    // Replacing an expired row removes it: its `expire` change comes first (as on Postgres).
    const feed = this.feed(scope.namespace, scope.keyspace);
    const changes: ChangeRecord[] = [];
    const expiredPrev = prev !== undefined && prev.expiresAt !== null && prev.expiresAt <= now ? prev : undefined;
    if (expiredPrev) changes.push({ seq: feed.head + 1, key, op: 'expire', version: expiredPrev.version, at: now });
    const set: ChangeRecord = { seq: feed.head + changes.length + 1, key, op: 'set', version, value, at: now };
    changes.push(set);
    const outcome = claim && outcomeFields(claim, now, 200, 'ok', version);
    // Journal first: if the append fails, nothing below runs and the write is refused.
    if (this.journal) {
      const expire = changes.length > 1 ? encodeDelete(scope.namespace, scope.keyspace, key, { seq: changes[0]!.seq, op: 'expire', ver: expiredPrev!.version }) : '';
      const lines = expire + encodeSet(scope.namespace, scope.keyspace, key, value, version, expiresAt, set.seq);
      this.record(outcome ? withIdempotency(lines, outcome) : lines);
    }
    this.nextVersion++;
    ks.rows.set(key, { value, bytes, version, expiresAt });
    this.nsBytes.set(scope.namespace, (this.nsBytes.get(scope.namespace) ?? 0) - (prev?.bytes ?? 0) + bytes);
    if (outcome) this.idem.put(scope.namespace, scope.keyspace, outcome);
    this.publish(scope.namespace, scope.keyspace, feed, changes);
    return { version };
  }

  /** Drops the namespace's expired rows (with their `expire` changes) and outcomes past their retention: before a budget refusal. */
  private purgeNamespace(namespace: string, now: number): void {
    for (const [name, ks] of this.namespaces_.get(namespace) ?? []) this.purgeKeyspace(namespace, name, ks, now);
    this.idem.purgeNamespace(namespace, now);
  }

  async delete(scope: Scope, key: string, opts: DeleteOptions = {}): Promise<boolean> {
    return this.deleteSync(scope, key, opts, undefined);
  }

  /**
   * A recorded read in one synchronous step: the live entry now, stored as an `idem` line of its
   * own (a read changes nothing else), counted in the byte budget with the value it copies.
   */
  async getRecorded(scope: Scope, key: string, budget: RecordBudget, claim: IdempotencyClaim): Promise<ReadOutcome> {
    const now = this.now();
    const prior = this.idem.live(scope.namespace, scope.keyspace, claim.key, now);
    if (prior) return replayRead(prior, claim);
    const row = this.keyspace(scope, false)?.rows.get(key);
    const entry: Entry | null = this.live(row, now) ? { value: row.value, version: row.version, expiresAt: row.expiresAt } : null;
    const record = readOutcomeFields(claim, now, entry);
    const nsBudget = budget.namespaceByteBudget ?? 0;
    if (nsBudget > 0) {
      const after = () => (this.nsBytes.get(scope.namespace) ?? 0) + this.idem.bytes(scope.namespace) + outcomeBytes(record);
      if (after() > nsBudget) {
        this.purgeNamespace(scope.namespace, now);
        // Refused, never answered unrecorded: a replay of this request could not give the same answer.
        if (after() > nsBudget) throw quotaNamespaceBytes(nsBudget);
      }
    }
    this.storeOutcome(scope, record);
    return { status: entry ? 200 : 404, entry, replayed: false };
  }

  /**
   * delete in one synchronous step. With `claim`, the `deleted` outcome rides on the `del` line;
   * a `missing` one changes nothing and is stored by deleteIdempotent on a line of its own.
   */
  private deleteSync(scope: Scope, key: string, opts: DeleteOptions, claim: IdempotencyClaim | undefined): boolean {
    this.checkFence(scope, key, opts.fence);
    const ks = this.keyspace(scope, false);
    const row = ks?.rows.get(key);
    if (!ks || !row) return false;
    const now = this.now();
    const isLive = this.live(row, now);
    if (isLive && opts.ifVersion !== undefined && row.version !== opts.ifVersion) throw versionConflict(key, opts.ifVersion);
    const feed = this.feed(scope.namespace, scope.keyspace);
    const change: ChangeRecord = { seq: feed.head + 1, key, op: isLive ? 'delete' : 'expire', version: row.version, at: now };
    const outcome = claim && isLive ? outcomeFields(claim, now, 200, 'deleted', null) : undefined;
    if (this.journal) {
      const line = encodeDelete(scope.namespace, scope.keyspace, key, { seq: change.seq, op: change.op as 'delete' | 'expire', ver: row.version });
      this.record(outcome ? withIdempotency(line, outcome) : line);
    }
    this.removeRow(scope.namespace, ks, key, row);
    if (outcome) this.idem.put(scope.namespace, scope.keyspace, outcome);
    this.publish(scope.namespace, scope.keyspace, feed, [change]);
    return isLive;
  }

  async setIdempotent(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget, claim: IdempotencyClaim): Promise<WriteOutcome> {
    const now = this.now();
    const prior = this.idem.live(scope.namespace, scope.keyspace, claim.key, now);
    if (prior) return replay(prior, claim);
    try {
      const { version } = this.setSync(scope, key, value, opts, budget, claim);
      return { status: 200, result: 'ok', version, replayed: false };
    } catch (err) {
      // A refused precondition is an outcome; a quota refusal is thrown and not stored.
      if (!(err instanceof StateStoreError && err.code === 'version_conflict')) throw err;
      this.storeOutcome(scope, outcomeFields(claim, now, 412, 'version_conflict', null));
      return { status: 412, result: 'version_conflict', version: null, replayed: false };
    }
  }

  async deleteIdempotent(scope: Scope, key: string, opts: DeleteOptions, claim: IdempotencyClaim): Promise<WriteOutcome> {
    const now = this.now();
    const prior = this.idem.live(scope.namespace, scope.keyspace, claim.key, now);
    if (prior) return replay(prior, claim);
    try {
      if (this.deleteSync(scope, key, opts, claim)) return { status: 200, result: 'deleted', version: null, replayed: false };
    } catch (err) {
      if (!(err instanceof StateStoreError && err.code === 'version_conflict')) throw err;
      this.storeOutcome(scope, outcomeFields(claim, now, 412, 'version_conflict', null));
      return { status: 412, result: 'version_conflict', version: null, replayed: false };
    }
    // A missing key: 404, or 412 when a precondition was given (as statesvc answers it).
    const status = opts.ifVersion === undefined ? 404 : 412;
    this.storeOutcome(scope, outcomeFields(claim, now, status, 'missing', null));
    return { status, result: 'missing', version: null, replayed: false };
  }

  /** Stores an outcome that changed nothing (a line of its own: there is no write to ride on). */
  private storeOutcome(scope: NsKs, f: IdempotencyFields): void {
    if (this.journal) this.record(encodeIdempotency(scope.namespace, scope.keyspace, f));
    this.idem.put(scope.namespace, scope.keyspace, f);
  }

  async idempotencyUsage(scope: NsKs): Promise<IdempotencyUsage> {
    return this.idem.usage(scope.namespace, scope.keyspace, this.now());
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

  /**
   * Every row leaves with a change, in key order: `delete` if live, else `expire`; journaled as
   * those `del` records, then `dks`. The feed stays (its numbers continue if the keyspace returns),
   * but its history before the deletion — which holds the values — is pruned (a `low` record):
   * a reader behind the deletion is told its position expired and starts over from the now empty
   * keyspace, and no deleted value can be read back from the feed.
   */
  async deleteKeyspace(scope: Pick<Scope, 'namespace' | 'keyspace'>): Promise<number> {
    const { namespace, keyspace } = scope;
    const ks = this.namespaces_.get(namespace)?.get(keyspace);
    const fenceId = feedId(namespace, keyspace);
    // A keyspace without rows may still have fences, recorded reads and history: they go too.
    const feed = ks ? this.feed(namespace, keyspace) : this.feeds.get(fenceId);
    const before = feed?.head ?? 0;
    const prune = feed !== undefined && before > feed.low;
    if (!ks && !prune && !this.fences.has(fenceId) && !this.idem.hasValueCopies(namespace, keyspace)) return 0;
    const now = this.now();
    const rows = ks ? [...ks.rows].sort((a, b) => compareKeys(a[0], b[0])) : [];
    const changes: ChangeRecord[] = rows.map(([key, row], i) => ({ seq: before + i + 1, key, op: this.live(row, now) ? 'delete' : 'expire', version: row.version, at: now }));
    if (this.journal) {
      let lines = '';
      for (const c of changes) lines += encodeDelete(namespace, keyspace, c.key, { seq: c.seq, op: c.op as 'delete' | 'expire', ver: c.version });
      this.record(lines + encodeDeleteKeyspace(namespace, keyspace) + (prune ? encodeFeedLow(namespace, keyspace, before) : ''));
    }
    const live = this.dropKeyspace(scope);
    this.fences.delete(fenceId);
    this.idem.dropValueCopies(namespace, keyspace);
    if (prune) feed.pruneTo(before);
    if (ks && feed) this.publish(namespace, keyspace, feed, changes);
    return live;
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
    // Outcomes past their retention are not journaled as removed: a replay drops them by `exp`.
    n += this.idem.purge(now);
    return n;
  }

  async changes(scope: NsKs, opts: ChangesOptions): Promise<ChangesPage> {
    const feed = this.feeds.get(feedId(scope.namespace, scope.keyspace));
    if (!feed) return { low: 0, head: 0, expired: opts.since < 0, changes: [], next: Math.max(0, opts.since) };
    return feed.page(opts);
  }

  async changeWindow(scope: NsKs): Promise<ChangeWindow> {
    const feed = this.feeds.get(feedId(scope.namespace, scope.keyspace));
    return { low: feed?.low ?? 0, head: feed?.head ?? 0 };
  }

  watchChanges(scope: NsKs, wake: () => void): () => void {
    return this.watchers.add(feedId(scope.namespace, scope.keyspace), wake);
  }


  /** Journaled as one `low` line per pruned feed (one write), so a restart keeps the window. */
  async pruneChanges(retention: ChangeRetention): Promise<number> {
    const now = this.now();
    const targets: Array<[MemoryFeed, number]> = [];
    let lines = '';
    for (const [id, feed] of this.feeds) {
      const low = feed.pruneTarget(retention, now);
      if (low <= feed.low) continue;
      targets.push([feed, low]);
      const slash = id.indexOf('/');
      if (this.journal) lines += encodeFeedLow(id.slice(0, slash), id.slice(slash + 1), low);
    }
    if (lines) this.record(lines);
    let n = 0;
    for (const [feed, low] of targets) n += feed.pruneTo(low);
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

import { Registry } from 'prom-client';
import { OpTimeoutError, withDeadline, type OpDeadline } from './deadline.ts';
import { entityKey, namespaceProblem } from './keys.ts';
import { stateSyncMetrics, type StateSyncMetrics } from './metrics.ts';
import {
  consoleLogger,
  resolveOptions,
  type ResolvedStateSyncOptions,
  type StateSyncLogger,
  type StateSyncOptions,
  type StateSyncTimers,
} from './options.ts';
import { pullNamespace, type PullResult } from './pull.ts';
import { pushNamespace, type PushResult } from './push.ts';
import { asBuffer, type RedisHandle } from './redis-handle.ts';
import { initialDelayMs, nextBackoffMs, waitBeforeNextCycleMs } from './schedule.ts';
import { hasHooks, hasTombstones, type Syncable } from './syncable.ts';

/** Per syncable, shaped like the StateSync resource's replica status so the console can show it. */
export interface SyncableStatus {
  syncable: string;
  /** ISO time of the last cycle in which this syncable both pulled and pushed without error. */
  lastSuccessfulCycle?: string;
  /** Entities read from Redis / written to Redis in the last successful cycle. */
  entitiesPulled: number;
  entitiesPushed: number;
  /** Running totals since start (write-through `put`/`delete` count as pushed). */
  entitiesPulledTotal: number;
  entitiesPushedTotal: number;
  lastError?: string;
  lastErrorAt?: string;
  /** The manager's current backoff base (the period when healthy). */
  backoffSeconds: number;
}

export interface StateSyncStatus {
  started: boolean;
  stopped: boolean;
  syncPeriodMs: number;
  backoffMs: number;
  cycles: { ok: number; error: number };
  syncables: SyncableStatus[];
}

export interface CycleOutcome {
  ok: boolean;
  durationMs: number;
  results: Array<{ namespace: string; pull?: PullResult; push?: PushResult; error?: string }>;
}

export interface StateSync {
  /** Before `start()` only; later calls, empty or duplicate namespaces are ignored with a warning. */
  register(syncable: Syncable): boolean;
  /** Starts the loop: first cycle after a random delay in [0, period/2). A second call is ignored. */
  start(): void;
  /** Idempotent; waits for an in-flight cycle at most `stopWaitTimeoutMs`. Does not close Redis. */
  stop(): Promise<void>;
  /** Write-through: SETEX one record now (the periodic push still runs). */
  put(namespace: string, id: string, bytes: Uint8Array): Promise<void>;
  /** Write-through delete: a tombstone when the registered syncable supports it, else DEL. */
  delete(namespace: string, id: string): Promise<void>;
  status(): StateSyncStatus;
  /** One pull-then-push cycle now, serialized with the loop (benchmarks, "sync now"). */
  syncOnce(): Promise<CycleOutcome>;
  readonly options: Readonly<ResolvedStateSyncOptions>;
  readonly registry: Registry;
}

interface Entry {
  syncable: Syncable;
  status: SyncableStatus;
}

export function createStateSync(redis: RedisHandle, options: StateSyncOptions = {}): StateSync {
  const logger: StateSyncLogger = options.logger ?? consoleLogger;
  const opts = resolveOptions(options, logger);
  const registry = options.registry ?? new Registry();
  const metrics: StateSyncMetrics = stateSyncMetrics(registry);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  // Looked up at call time so vitest fake timers installed later still apply.
  const timers: StateSyncTimers = options.timers ?? {
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
  };

  const entries: Entry[] = [];
  let started = false;
  let stopping = false;
  let stopPromise: Promise<void> | undefined;
  let timer: unknown;
  let backoffMs = opts.syncPeriodMs;
  let chain: Promise<unknown> = Promise.resolve();
  let inFlight: Promise<unknown> | undefined;
  const cycles = { ok: 0, error: 0 };
  metrics.backoffSeconds.set(backoffMs / 1000);

  const iso = (ms: number): string => new Date(ms).toISOString();
  const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  async function pullWithHooks(syncable: Syncable, deadline: OpDeadline): Promise<PullResult> {
    const settings = { keyPrefix: opts.keyPrefix, scanCount: opts.scanCount, mgetBatchSize: opts.mgetBatchSize, logger, deadline };
    if (!hasHooks(syncable)) return pullNamespace(redis, syncable, settings);
    await syncable.onSyncStart();
    let failure: unknown;
    try {
      return await pullNamespace(redis, syncable, settings);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      try {
        await syncable.onSyncEnd(failure);
      } catch (err) {
        logger.warn('statesync: onSyncEnd failed', { namespace: syncable.namespace, error: message(err) });
      }
    }
  }

  /** Pull, then push, one syncable; each operation under its own `opTimeoutMs` deadline (the seed's). */
  async function syncOne(entry: Entry, outcome: CycleOutcome): Promise<void> {
    const ns = entry.syncable.namespace;
    const result: CycleOutcome['results'][number] = { namespace: ns };
    outcome.results.push(result);
    try {
      result.pull = await withDeadline(`pull of ${ns}`, opts.opTimeoutMs, timers, (deadline) => pullWithHooks(entry.syncable, deadline));
      result.push = await withDeadline(`push of ${ns}`, opts.opTimeoutMs, timers, (deadline) =>
        pushNamespace(redis, entry.syncable, {
          keyPrefix: opts.keyPrefix,
          recordTtlSeconds: opts.recordTtlSeconds,
          setexChunkSize: opts.setexChunkSize,
          warnSnapshotEntries: opts.warnSnapshotEntries,
          warnAverageEntryBytes: opts.warnAverageEntryBytes,
          logger,
          deadline,
        }),
      );
      const pushed = result.push.upserts + result.push.deletes;
      metrics.entities.inc({ direction: 'pulled' }, result.pull.read);
      metrics.entities.inc({ direction: 'pushed' }, pushed);
      Object.assign(entry.status, {
        lastSuccessfulCycle: iso(now()),
        entitiesPulled: result.pull.read,
        entitiesPushed: pushed,
        entitiesPulledTotal: entry.status.entitiesPulledTotal + result.pull.read,
        entitiesPushedTotal: entry.status.entitiesPushedTotal + pushed,
      });
    } catch (err) {
      result.error = message(err);
      entry.status.lastError = result.error;
      entry.status.lastErrorAt = iso(now());
      const timeout = err instanceof OpTimeoutError ? { timeoutMs: err.timeoutMs } : {};
      logger.warn('statesync: sync failed for namespace', { namespace: ns, error: result.error, ...timeout });
    }
  }

  async function runCycle(): Promise<CycleOutcome> {
    const startedAt = now();
    const endTimer = metrics.cycleSeconds.startTimer();
    const outcome: CycleOutcome = { ok: true, durationMs: 0, results: [] };
    // Pull first, then push: learning peers' newer records first lowers the chance of overwriting them.
    // A failing syncable (an error or a timed-out operation) does not stop the others.
    for (const entry of entries) await syncOne(entry, outcome);
    endTimer();
    outcome.ok = outcome.results.every((r) => r.error === undefined);
    outcome.durationMs = now() - startedAt;
    cycles[outcome.ok ? 'ok' : 'error']++;
    metrics.cycles.inc({ result: outcome.ok ? 'ok' : 'error' });
    return outcome;
  }

  /** Serialize cycles: the loop's and `syncOnce()`'s never overlap. */
  function enqueueCycle(): Promise<CycleOutcome> {
    const next = chain.then(runCycle, runCycle);
    chain = next.catch(() => undefined);
    inFlight = chain;
    return next;
  }

  function schedule(ms: number): void {
    if (stopping) return;
    timer = timers.setTimeout(() => {
      timer = undefined;
      void tick();
    }, ms);
  }

  async function tick(): Promise<void> {
    if (stopping) return;
    let ok = false;
    try {
      ok = (await enqueueCycle()).ok;
    } catch (err) {
      logger.error('statesync: cycle crashed', { error: message(err) });
    }
    backoffMs = nextBackoffMs(backoffMs, opts.syncPeriodMs, opts.maxBackoffMs, ok);
    metrics.backoffSeconds.set(backoffMs / 1000);
    for (const e of entries) e.status.backoffSeconds = backoffMs / 1000;
    schedule(waitBeforeNextCycleMs(backoffMs, opts.syncPeriodMs, opts.maxBackoffMs, random));
  }

  function requireNamespace(namespace: string, id: string): void {
    const problem = namespaceProblem(namespace);
    if (problem) throw new Error(`statesync: ${problem}`);
    if (typeof id !== 'string' || id.length === 0) throw new Error('statesync: entity id must be a non-empty string');
  }

  const manager: StateSync = {
    options: opts,
    registry,
    register(syncable) {
      if (started || stopping) {
        logger.warn('statesync: register after start is ignored; register every syncable before start()', {
          namespace: syncable.namespace,
        });
        return false;
      }
      const problem = namespaceProblem(syncable.namespace);
      if (problem) {
        logger.warn(`statesync: register ignored: ${problem}`);
        return false;
      }
      if (entries.some((e) => e.syncable.namespace === syncable.namespace)) {
        logger.warn('statesync: register ignored: namespace already registered', { namespace: syncable.namespace });
        return false;
      }
      entries.push({
        syncable,
        status: {
          syncable: syncable.namespace,
          entitiesPulled: 0,
          entitiesPushed: 0,
          entitiesPulledTotal: 0,
          entitiesPushedTotal: 0,
          backoffSeconds: backoffMs / 1000,
        },
      });
      return true;
    },
    start() {
      if (started || stopping) {
        logger.warn('statesync: start ignored (already started or stopped)');
        return;
      }
      started = true;
      schedule(initialDelayMs(opts.syncPeriodMs, random));
    },
    stop() {
      if (stopPromise) return stopPromise;
      stopping = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      const pending = inFlight;
      stopPromise = (async () => {
        if (!pending) return;
        let handle: unknown;
        const waited = await Promise.race([
          pending.then(() => 'done' as const),
          new Promise<'timeout'>((resolve) => {
            handle = timers.setTimeout(() => resolve('timeout'), opts.stopWaitTimeoutMs);
          }),
        ]);
        timers.clearTimeout(handle);
        if (waited === 'timeout') logger.warn('statesync: stop gave up waiting for the in-flight cycle', { stopWaitTimeoutMs: opts.stopWaitTimeoutMs });
      })();
      return stopPromise;
    },
    async put(namespace, id, bytes) {
      requireNamespace(namespace, id);
      await redis.setex(entityKey(opts.keyPrefix, namespace, id), opts.recordTtlSeconds, asBuffer(bytes));
      metrics.entities.inc({ direction: 'pushed' });
      const entry = entries.find((e) => e.syncable.namespace === namespace);
      if (entry) entry.status.entitiesPushedTotal++;
    },
    async delete(namespace, id) {
      requireNamespace(namespace, id);
      const key = entityKey(opts.keyPrefix, namespace, id);
      const entry = entries.find((e) => e.syncable.namespace === namespace);
      if (entry && hasTombstones(entry.syncable)) {
        await redis.setex(key, opts.recordTtlSeconds, asBuffer(entry.syncable.makeTombstone(id)));
      } else {
        await redis.del(key);
      }
      metrics.entities.inc({ direction: 'pushed' });
      if (entry) entry.status.entitiesPushedTotal++;
    },
    status() {
      return {
        started,
        stopped: stopping,
        syncPeriodMs: opts.syncPeriodMs,
        backoffMs,
        cycles: { ...cycles },
        syncables: entries.map((e) => ({ ...e.status })),
      };
    },
    syncOnce() {
      return enqueueCycle();
    },
  };
  return manager;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Etcd3, IWatchResponse, Watcher } from 'etcd3';
import type { Instance } from '../model/instance.ts';
import { matchesFilter, type InstanceFilter, type WatchOptions } from '../query/filter.ts';
import { decodeInstance, type IndexChange, type InstanceIndex } from '../etcd/instance-index.ts';
import type { KeyLayout } from '../etcd/keys.ts';
import { eventForChange, eventForIndexChange, type WatchEvent } from './change-events.ts';
import { PositionedEventWriter } from './event-positions.ts';
import { decideStart } from './watch-start.ts';

export { eventForChange, formatEvent, type WatchEvent } from './change-events.ts';

export const KEEPALIVE_MS = 15_000;
/** A watcher this far behind (bytes queued in the socket) is cut off instead of buffering forever. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const ALL_KEYS = Buffer.from([0]);

export interface WatchDeps {
  index: InstanceIndex;
  client: Etcd3;
  keys: KeyLayout;
  keepAliveMs?: number;
  requestTimeoutMs: number;
  onOpen?: () => void;
  onClose?: () => void;
  /** etcd's text when the replay failed (the watcher is told what to do, not etcd's words). */
  onFailure?: (detail: string) => void;
}

/** What a stream shows beyond the filter: instances past their TTL only with includeExpired=true. */
export interface StreamOptions {
  includeExpired: boolean;
}

/**
 * Serves one watch stream. Consistent hand-over: after the linearizable barrier the snapshot (or
 * the replay target) and the live subscription are taken in the same tick, so no change falls
 * between them and none is sent twice.
 *
 * Instances whose TTL passes without renewal leave the stream (a `delete`) when the index sees
 * it, before etcd removes the record. Those expirations are not etcd events, so a replay from
 * etcd's history cannot carry them: a resumed stream sends, after the replay, a `delete` for
 * every matching instance that expired at or after `sinceRevision` and is still in etcd (a
 * client that had already seen such a delete at exactly that revision sees it twice).
 */
export async function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  deps: WatchDeps,
  filter: InstanceFilter,
  opts: WatchOptions,
  stream: StreamOptions,
  sendError: (code: 'revision_expired' | 'read_failed', message: string) => void,
): Promise<void> {
  const current = await deps.index.barrier();
  const start = await decideStart(opts, current, (rev) => isCompacted(deps.client, deps.keys.barrierKey, rev));
  if (start.kind === 'expired') {
    sendError('revision_expired', start.message);
    return;
  }
  if (req.destroyed) return;

  // From here on, changes are either covered by the snapshot/replay (≤ mark) or delivered live.
  const mark = deps.index.revision;
  const snapshot = start.kind === 'snapshot' ? deps.index.select({ ...filter, limit: undefined }, stream) : undefined;
  if (start.kind !== 'snapshot') deps.index.expireDue();
  const expiredSince = start.kind === 'replay' && !stream.includeExpired ? expiredDeletes(deps.index, filter, start.since, mark) : [];
  let live: WatchEvent[] | undefined = start.kind === 'replay' ? [] : undefined;
  let closed = false;
  let history: Watcher | undefined;

  const frames = new PositionedEventWriter((frame) => {
    if (closed) return;
    res.write(frame);
    if (res.writableLength > MAX_BUFFERED_BYTES) finish();
  });
  const write = (ev: WatchEvent): void => {
    if (!closed) frames.push(ev);
  };
  const unsubscribe = deps.index.subscribe((change: IndexChange) => {
    // etcd changes up to the mark are in the snapshot or the replay; an expiration is news
    // whatever the revision it carries (the snapshot was taken after the ones before it).
    if (change.type !== 'expire' && change.revision <= mark) return;
    const ev = eventForIndexChange(filter, change, stream.includeExpired);
    if (!ev) return;
    if (live) live.push(ev);
    else write(ev);
  });
  const keepAlive = setInterval(() => {
    if (!closed) res.write(': keep-alive\n\n');
  }, deps.keepAliveMs ?? KEEPALIVE_MS);
  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(keepAlive);
    void history?.cancel().catch(() => undefined);
    deps.onClose?.();
    res.end();
  };
  req.on('close', finish);
  res.on('error', finish);

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  deps.onOpen?.();
  if (snapshot) write({ type: 'snapshot', revision: mark, instances: [...snapshot] });

  if (start.kind === 'replay') {
    try {
      if (start.since < mark && mark > 1) {
        const replayed = await replayHistory(deps, filter, start.since, mark, (w) => (history = w));
        for (const ev of replayed) write(ev);
      }
      for (const ev of expiredSince) write(ev);
    } catch (err) {
      deps.onFailure?.((err as Error).message);
      frames.release();
      const message = `replaying etcd history after revision ${start.since} failed; reconnect with sinceRevision=${start.since} (or without it for a fresh snapshot)`;
      if (!closed) res.write(`event: error\ndata: ${JSON.stringify({ code: 'read_failed', message })}\n\n`);
      finish();
      return;
    }
    const pending = live ?? [];
    live = undefined;
    for (const ev of pending) write(ev);
  }
}

/**
 * Deletes for the matching instances that expired (TTL passed without renewal) at or after
 * `since` and are still in etcd: what a replay of etcd's history cannot tell a resumed watcher.
 */
function expiredDeletes(index: InstanceIndex, filter: InstanceFilter, since: number, mark: number): WatchEvent[] {
  const out: WatchEvent[] = [];
  for (const { instance, expiredAt } of index.expiredInstances()) {
    if (expiredAt < since || !matchesFilter(filter, instance)) continue;
    out.push({ type: 'delete', revision: mark, instance: { ...instance, revision: mark } });
  }
  return out;
}

/** True when etcd no longer has revision `rev` (compacted). Probes with a one-key read at that revision. */
export async function isCompacted(client: Etcd3, key: string, rev: number): Promise<boolean> {
  try {
    await client.kv.range({ key: Buffer.from(key), revision: String(rev), count_only: true });
    return false;
  } catch (err) {
    if (/compacted/i.test((err as Error).message)) return true;
    throw err;
  }
}

/**
 * Events in (since, until] from etcd's own history, filtered. The history watch spans the whole
 * keyspace so that every revision shows up as an event and we know when `until` is reached.
 */
async function replayHistory(
  deps: WatchDeps,
  filter: InstanceFilter,
  since: number,
  until: number,
  track: (w: Watcher) => void,
): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const watcher = await deps.client.watch().inRange({ start: ALL_KEYS, end: ALL_KEYS }).startRevision(String(since + 1)).withPreviousKV().create();
  track(watcher);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replaying etcd history from revision ${since} did not reach ${until} in time`)),
        Math.max(10_000, 2 * deps.requestTimeoutMs),
      );
      watcher.on('error', (err: Error) => {
        clearTimeout(timer);
        reject(new Error(`etcd history is no longer available after revision ${since}: ${err.message}`));
      });
      watcher.on('data', (res: IWatchResponse) => {
        for (const ev of res.events) {
          const revision = Number(ev.kv.mod_revision);
          if (revision > until) continue;
          const key = ev.kv.key.toString('utf8');
          if (!key.startsWith(deps.keys.instancesPrefix)) continue;
          const prev = ev.prev_kv ? decodeInstance(ev.prev_kv) : undefined;
          const now = ev.type === 'Put' ? decodeInstance(ev.kv) : undefined;
          const out1 = eventForChange(filter, revision, now, prev ?? (ev.type === 'Delete' ? keyOnlyInstance(deps.keys, key, revision) : undefined));
          if (out1) out.push(out1);
        }
        const last = res.events.at(-1);
        if (last && Number(last.kv.mod_revision) >= until) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    await watcher.cancel().catch(() => undefined);
  }
  return out;
}

/** When etcd no longer has the previous value of a deleted key, the key alone identifies it. */
function keyOnlyInstance(keys: KeyLayout, key: string, revision: number): Instance | undefined {
  const k = keys.parseInstanceKey(key);
  if (!k) return undefined;
  const [organization = '', businessDomain = '', capabilityDomain = '', application = '', role = ''] = k.service.split('.');
  return {
    ...k,
    organization,
    businessDomain,
    capabilityDomain,
    application,
    role,
    zone: '',
    labels: {},
    metadata: {},
    endpoints: [],
    leaseTtlSeconds: 0,
    revision,
    createRevision: 0,
    leaseId: '0',
  };
}

/**
 * `state.changes({prefix, since})`: the keyspace's change feed (GET /v1/changes, Server-Sent
 * Events) as an async iterable. It reconnects by itself after a dropped connection, a statesvc
 * restart or a 502/503/504, resuming exactly after the last change it yielded, so a loop sees
 * every change once and in order. A position older than the feed keeps (or one the feed never
 * reached) ends the loop with ChangesExpiredError: re-read the keys and follow from now.
 */
import { EventStreamParser } from './event-stream-parser.ts';
import { retryDelay } from './retry-delay.ts';
import { StateError } from './state-error.ts';

/** One change of a key (StateChangeEvent in @orrery/spec). */
export interface StateChange<T = unknown> {
  /** 1, 2, 3, … in commit order with no gap, per keyspace: resume after it with `since`. */
  seq: number;
  key: string;
  op: 'set' | 'delete' | 'expire';
  /** The version written (`set`) or removed (`delete`, `expire`). */
  version: number;
  /** Only for `set`: the value written. */
  value?: T;
}

export interface ChangesOptions {
  /** Only keys starting with this. */
  prefix?: string;
  /** Resume after this `seq` (0 = from the oldest change kept); absent = from now. */
  since?: number;
  /** Stops the loop (it then ends without an error). */
  signal?: AbortSignal;
  /** First wait before reconnecting, doubled on each failure in a row (at most 5 s). Default 200 ms. */
  retryDelayMs?: number;
  /** A connection silent this long (statesvc sends a heartbeat every 15 s by default) is dropped and reopened. Default 60 s. */
  idleTimeoutMs?: number;
}

/** The position asked for is no longer (or not yet) in the feed: re-read the keys, then follow from now. */
export class ChangesExpiredError extends StateError {
  constructor(message: string) {
    super('changes_expired', 410, message);
    this.name = 'ChangesExpiredError';
  }
}

/** Opens the stream: GET `path` with the client's credentials (and its 401 re-read of the token file). */
export type OpenStream = (path: string) => Promise<Response>;

const RETRY_STATUSES = new Set([502, 503, 504]);
/** Statuses of the codes an `event: error` frame carries. */
const STATUS_OF: Record<string, number> = { changes_expired: 410, forbidden: 403, capability_unavailable: 503, internal: 500 };
const MAX_RETRY_DELAY_MS = 5000;

function errorOf(text: string, status: number, fallback: string): StateError {
  let code = 'internal';
  let message = text || fallback;
  try {
    const e = JSON.parse(text) as { error?: string; code?: string };
    code = e.code ?? code;
    message = e.error ?? message;
  } catch {
    /* not JSON: keep the text */
  }
  return code === 'changes_expired' ? new ChangesExpiredError(message) : new StateError(code, status, message);
}

export async function* followChanges<T = unknown>(open: OpenStream, opts: ChangesOptions = {}): AsyncGenerator<StateChange<T>, void, undefined> {
  const signal = opts.signal;
  const baseDelay = opts.retryDelayMs ?? 200;
  const idleMs = opts.idleTimeoutMs ?? 60_000;
  let position = opts.since;
  let failures = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  const backoff = () => pause(retryDelay(failures++, baseDelay, MAX_RETRY_DELAY_MS) * (0.8 + 0.4 * Math.random()));

  while (!signal?.aborted) {
    const q = new URLSearchParams();
    if (opts.prefix) q.set('prefix', opts.prefix);
    if (position !== undefined) q.set('since', String(position));
    const qs = q.toString();
    let res: Response;
    try {
      res = await open(`/v1/changes${qs ? `?${qs}` : ''}`);
    } catch (err) {
      if (err instanceof StateError) throw err; // the client's own (no URL, no token file)
      await backoff(); // no answer: statesvc restarting, connection refused
      continue;
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      if (RETRY_STATUSES.has(res.status)) {
        await backoff();
        continue;
      }
      throw errorOf(text, res.status, res.statusText);
    }
    if (!res.body) throw new StateError('internal', res.status, 'the change feed answered without a body');
    const reader = res.body.getReader();
    const parser = new EventStreamParser();
    const decoder = new TextDecoder();
    let idle: NodeJS.Timeout | undefined;
    const stop = () => void reader.cancel().catch(() => undefined);
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(stop, idleMs);
    };
    signal?.addEventListener('abort', stop, { once: true });
    armIdle();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          break; // connection lost mid-stream: reconnect
        }
        if (chunk.done) break;
        armIdle();
        for (const item of parser.feed(decoder.decode(chunk.value, { stream: true }))) {
          if (item.kind === 'position') {
            const at = Number(item.id);
            if (Number.isSafeInteger(at)) position = at;
            continue;
          }
          if (item.event === 'error') {
            const err = errorOf(item.data, 500, 'the change feed ended with an error');
            throw err instanceof ChangesExpiredError ? err : new StateError(err.code, STATUS_OF[err.code] ?? 500, err.message);
          }
          if (item.event !== 'message') continue;
          const change = JSON.parse(item.data) as StateChange<T>;
          // Never twice: a change at or below the position was already yielded.
          if (position !== undefined && change.seq <= position) continue;
          position = change.seq;
          failures = 0;
          yield change;
          if (signal?.aborted) return;
        }
      }
    } catch (err) {
      // A database outage mid-stream is retried; `forbidden`, `changes_expired` and anything else end the loop.
      if (!(err instanceof StateError && (err.code === 'capability_unavailable' || err.code === 'internal'))) throw err;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', stop);
      stop();
    }
    if (signal?.aborted) return;
    await backoff();
  }
}

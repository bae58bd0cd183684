import type { IncomingMessage, ServerResponse } from 'node:http';
import { StateStoreError, type Scope, type StateDriver } from '@orrery/statestore';
import { changeEventText, errorEventText, HEARTBEAT_TEXT, positionText } from './change-event-text.ts';
import { changesExpired, type ChangeFeedHub } from './change-feed-hub.ts';
import type { ChangesRequest } from './changes-request.ts';
import { HttpError } from './http-error.ts';

export interface ChangeStreamOptions {
  hub: ChangeFeedHub;
  driver: Pick<StateDriver, 'changeWindow'>;
  /** Open streams allowed per keyspace on this process (`--changes-max-streams`). */
  maxStreams: number;
  heartbeatMs: number;
  /** Re-checked at every heartbeat: false ends the stream with `forbidden` (the keyspace was undeclared). */
  stillDeclared: () => boolean;
  /** A stream that ended with an error (for the log and metrics); not called for a client that left. */
  onError?: (err: unknown) => void;
  onOpen?: () => void;
  onClose?: () => void;
}

/** A client that stops reading is cut off once this much is queued for it (it resumes by itself). */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * Serves `GET /v1/changes` for an authenticated scope. Refusals (429, 410) are thrown before
 * the response starts, as ordinary errors; once streaming, a failure is an `event: error` frame
 * and the end of the stream.
 */
export async function serveChangeStream(req: IncomingMessage, res: ServerResponse, scope: Scope, request: ChangesRequest, opts: ChangeStreamOptions): Promise<void> {
  const tooMany = () =>
    new HttpError(
      'too_many_streams',
      `keyspace ${scope.namespace}/${scope.keyspace} already has ${opts.maxStreams} change streams open on this statesvc (--changes-max-streams); close one, or share one stream among readers`,
    );
  if (opts.hub.streams(scope) >= opts.maxStreams) throw tooMany();
  const window = await opts.driver.changeWindow(scope);
  let start: number;
  if (request.since === undefined) start = window.head;
  else if (request.since < window.low) throw changesExpired(request.since, window.low);
  else if (request.since > window.head) {
    throw new StateStoreError(
      'changes_expired',
      `since ${request.since} is ahead of this keyspace's newest change (${window.head}): its feed started over (e.g. a memory statesvc restarted without --data-dir); re-read the keys (GET /v1/state?prefix=) and follow from now (GET /v1/changes without since)`,
    );
  } else start = request.since;
  if (req.destroyed || res.destroyed) return;
  // Checked again with no await before subscribing, so concurrent requests cannot overshoot.
  if (opts.hub.streams(scope) >= opts.maxStreams) throw tooMany();

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  res.write(positionText(start));
  let ended = false;
  let lastId = start;
  const end = (frame?: string) => {
    if (ended) return;
    ended = true;
    stream.close();
    clearInterval(heartbeat);
    opts.onClose?.();
    if (frame && !res.destroyed) res.end(frame);
    else if (!res.writableEnded) res.end();
  };
  const stream = opts.hub.subscribe(scope, { since: start, prefix: request.prefix }, {
    deliver(changes) {
      if (ended) return false;
      let text = '';
      for (const c of changes) text += changeEventText(c);
      lastId = changes[changes.length - 1]!.seq;
      return res.write(text);
    },
    fail(err) {
      if (ended) return;
      opts.onError?.(err);
      const known = err instanceof StateStoreError || err instanceof HttpError;
      const code = known ? err.code : 'capability_unavailable';
      const message = known && err.code !== 'capability_unavailable' && err.code !== 'internal' ? err.message : 'the state database cannot be reached; reconnect with Last-Event-ID to resume';
      end(errorEventText(code, message));
    },
    interrupt: () => end(),
  });
  opts.onOpen?.();
  const heartbeat = setInterval(() => {
    if (ended) return;
    if (!opts.stillDeclared()) {
      end(errorEventText('forbidden', `keyspace ${scope.namespace}/${scope.keyspace} is no longer declared by any function (spec.state)`));
      return;
    }
    if (res.writableLength > MAX_QUEUED_BYTES) {
      end();
      res.destroy();
      return;
    }
    // A stream whose prefix skipped changes tells the client how far it has read, so a resume
    // does not start below the window for nothing.
    const at = stream.cursor > lastId ? positionText(stream.cursor) : '';
    if (at) lastId = stream.cursor;
    res.write(at + HEARTBEAT_TEXT);
  }, opts.heartbeatMs);
  heartbeat.unref();
  res.on('drain', () => stream.resume());
  // The client left (or the server ends the connection): stop following.
  res.on('close', () => end());
  res.on('error', () => end());
}

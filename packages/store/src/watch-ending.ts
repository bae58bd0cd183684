/**
 * How a ResourceStore watch ends, the same in every store: once. `end(err?)` runs the watch's own
 * cleanup the first time only and settles `done` (resolved when closed, rejected with the error
 * that stopped it); `ended` tells the watch's loops to stop.
 */
export interface WatchEnding {
  readonly done: Promise<void>;
  readonly ended: boolean;
  end(err?: unknown): void;
}

export function watchEnding(cleanup: () => void): WatchEnding {
  let ended = false;
  let finish!: () => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    finish = res;
    fail = rej;
  });
  done.catch(() => {}); // the caller may not await it
  return {
    done,
    get ended() {
      return ended;
    },
    end(err?: unknown) {
      if (ended) return;
      ended = true;
      cleanup();
      if (err) fail(err);
      else finish();
    },
  };
}

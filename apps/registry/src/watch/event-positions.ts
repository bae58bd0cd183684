import { formatEvent, type WatchEvent } from './change-events.ts';

/**
 * Writes a watch stream's events with their resume positions (the SSE `id`). Several changes
 * can share one etcd revision — the puts of one registration txn (etcd/put-batcher.ts), the
 * expirations a resumed stream is told about — and a client resumes *after* the id it saw last.
 * So an event followed by another of the same revision carries the revision before it as its
 * id: a stream cut between the two resumes with that whole revision again (a repeat, never a
 * loss). The last event of a revision carries the revision itself.
 *
 * The index delivers all changes of one etcd watch response in one synchronous pass, and etcd
 * keeps a revision's events in one response, so the last event is held until the end of the
 * current pass (a microtask) to see whether another of its revision follows.
 */
export class PositionedEventWriter {
  private held: WatchEvent | undefined;
  private releaseQueued = false;

  constructor(private readonly out: (frame: string) => void) {}

  push(ev: WatchEvent): void {
    const held = this.held;
    if (held) this.out(formatEvent(held, held.revision === ev.revision ? held.revision - 1 : held.revision));
    this.held = ev;
    if (!this.releaseQueued) {
      this.releaseQueued = true;
      queueMicrotask(this.release);
    }
  }

  /** Writes the held event with its own revision as its position. */
  readonly release = (): void => {
    this.releaseQueued = false;
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    this.out(formatEvent(held, held.revision));
  };
}

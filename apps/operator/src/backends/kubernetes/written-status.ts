/**
 * The status this leader term last wrote per object. The informer may not show a write yet, and
 * an Event is the change from the status written before: judged on a lagging cache, one change
 * would be reported twice.
 */
export class WrittenStatus<S> {
  private readonly written = new Map<string, S>();

  /** Runs the write, then returns the status this change's Events are computed from. */
  async write(key: string, cached: S | undefined, status: S, apply: () => Promise<unknown>): Promise<S | undefined> {
    await apply();
    const before = this.written.get(key) ?? cached;
    this.written.set(key, status);
    return before;
  }

  forget(key: string): void {
    this.written.delete(key);
  }
}

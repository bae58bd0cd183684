/**
 * The change-feed wake-ups of one driver: who watches which keyspace (`watchChanges`), and the
 * wake after a write — on the next turn of the event loop, so after the write has answered, and
 * once per turn however many changes it made.
 */
export class ChangeWatchers {
  private readonly byKeyspace = new Map<string, Set<() => void>>();
  private readonly wakeQueued = new Set<string>();

  /** Registers `wake` for the keyspace `id`; answers its removal. */
  add(id: string, wake: () => void): () => void {
    let set = this.byKeyspace.get(id);
    if (!set) {
      set = new Set();
      this.byKeyspace.set(id, set);
    }
    // A function may be registered twice: each registration is its own.
    const entry = () => wake();
    set.add(entry);
    return () => {
      const s = this.byKeyspace.get(id);
      s?.delete(entry);
      if (s?.size === 0) this.byKeyspace.delete(id);
    };
  }

  /** Wakes the keyspace's watchers on the next turn (nothing when it has none). */
  wakeSoon(id: string): void {
    if (!this.byKeyspace.has(id) || this.wakeQueued.has(id)) return;
    this.wakeQueued.add(id);
    setImmediate(() => {
      this.wakeQueued.delete(id);
      for (const wake of this.byKeyspace.get(id) ?? []) wake();
    });
  }
}

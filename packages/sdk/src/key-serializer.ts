/**
 * Runs the tasks given for one key one after another, in the order given; different keys run side
 * by side. `update()` goes through it so that the read–modify–CAS rounds of one process on one
 * key never race each other: with sticky routing all of a key's requests reach one worker, and
 * without this every concurrent request would conflict with every other, retry, and conflict
 * again (work quadratic in the requests waiting, which is how a hot counter melted down under load).
 */
export class KeySerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // The last task of a key removes the key: the map holds only keys with work waiting.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}

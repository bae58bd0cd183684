import { StateError } from './state-error.ts';

/**
 * 409 `fenced`: this worker lost the key — another worker claimed it since (the router moved the
 * key), or the fence was never issued for it. Nothing was written. Stop working on the key here;
 * it comes back with the router's "key moved" signal, which makes the client claim it again.
 */
export class FencedError extends StateError {
  /** The key's current fence at statesvc (0 = none claimed). */
  readonly fence: number;
  readonly key: string;
  constructor(key: string, fence: number, message: string) {
    super('fenced', 409, message);
    this.name = 'FencedError';
    this.key = key;
    this.fence = fence;
  }
}

/** `update()` ran out of attempts: every compare-and-swap met a newer version (a busy key). */
export class UpdateConflictError extends StateError {
  readonly key: string;
  readonly attempts: number;
  constructor(key: string, attempts: number) {
    super('version_conflict', 412, `update of key ${JSON.stringify(key)} gave up after ${attempts} attempts: another writer changed it each time; retry later or raise {retries}`);
    this.name = 'UpdateConflictError';
    this.key = key;
    this.attempts = attempts;
  }
}

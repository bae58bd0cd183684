import type { Resource, ResourceKind, ValidationError } from '@orrery/spec';

export type WatchEventType = 'added' | 'modified' | 'deleted';

export interface WatchEvent {
  type: WatchEventType;
  /** The object after the change (for `deleted`: as it was when deleted). */
  object: Resource;
  /** Same value as object.metadata.resourceVersion, as a number for ordering. */
  resourceVersion: number;
}

export interface ListOptions {
  /** Absent = every namespace. */
  namespace?: string;
  /** Equality match on metadata.labels, e.g. {"orrery.dev/function": "counter"}. */
  labels?: Record<string, string>;
}

export interface ListResult {
  items: Resource[];
  /** Store revision at the time of the list: pass to watch() to continue without a gap. */
  resourceVersion: number;
}

export interface WatchOptions {
  namespace?: string;
  /** Replay every change after this revision first; too old → StoreError `expired`. */
  sinceResourceVersion?: number;
}

export interface ApplyOptions {
  /** Optimistic concurrency: fail with `conflict` unless the stored object has this version. */
  resourceVersion?: string;
  /** Revisions are immutable; only the operator (which creates them) may pass true. */
  allowCreateOnlyKinds?: boolean;
  /**
   * Kubernetes only (server-side apply): take over fields another field manager (kubectl, a
   * GitOps controller) owns. Without it such fields make the apply a `conflict` naming each one.
   * The local store has no field managers and ignores it.
   */
  force?: boolean;
}

export interface Watch {
  /** Stops the watch; pending events are dropped. */
  close(): void;
  /** Resolves when the watch ends (closed, or failed with the error). */
  done: Promise<void>;
}

/**
 * The one resource store interface: the operator, the router, statesvc and the admin API read
 * and write resources only through it, whatever backs it (embedded database, Postgres, an HTTP
 * client of the operator's store, Kubernetes).
 */
export interface ResourceStore {
  list(kind: ResourceKind, opts?: ListOptions): Promise<ListResult>;
  get(kind: ResourceKind, namespace: string, name: string): Promise<Resource | undefined>;
  watch(kind: ResourceKind, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Watch;
  /** Create or replace spec/metadata (validated by @orrery/spec); generation bumps on spec change only. */
  apply(obj: unknown, opts?: ApplyOptions): Promise<Resource>;
  /** Replace status only; never bumps generation. */
  updateStatus(kind: ResourceKind, namespace: string, name: string, status: unknown, opts?: { resourceVersion?: string }): Promise<Resource>;
  delete(kind: ResourceKind, namespace: string, name: string, opts?: { resourceVersion?: string }): Promise<boolean>;
  close(): Promise<void>;
}

export type StoreErrorCode = 'invalid' | 'not_found' | 'conflict' | 'immutable' | 'expired' | 'unavailable';

const HTTP_STATUS: Record<StoreErrorCode, number> = {
  invalid: 422,
  not_found: 404,
  conflict: 409,
  immutable: 422,
  expired: 410,
  unavailable: 503,
};

export class StoreError extends Error {
  readonly status: number;
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details?: ValidationError[],
  ) {
    super(message);
    this.name = 'StoreError';
    this.status = HTTP_STATUS[code];
  }
}

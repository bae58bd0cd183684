import type { Watch } from '@kubernetes/client-node';
import { collectionPath, resourceFor } from './api-resources.ts';
import { type KubeClient, type KubeObject, statusCode } from './kube-client.ts';
import { isIdleTimeout, newWatch } from './watch-stream.ts';
import { watchRestartDelay } from './watch-restart-delay.ts';

export type InformerEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface InformerOptions {
  apiVersion: string;
  kind: string;
  namespace?: string;
  labelSelector?: string;
  /** e.g. `type=kubernetes.io/tls` for Secrets: only those are listed, watched and cached. */
  fieldSelector?: string;
  /** First delay before restarting a watch that failed for a reason other than 410; it doubles (watch-restart-delay.ts). */
  restartDelayMs?: number;
  /**
   * Server-side timeout of each watch (default: 5-10 minutes at random, as client-go's reflector). The API server
   * sends a bookmark shortly before it closes the watch, and the next watch resumes from there.
   */
  watchTimeoutSeconds?: number;
  log?: (msg: string) => void;
}

export const cacheKey = (o: { metadata: { namespace?: string; name: string } }): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/**
 * List + watch cache for one kind, in the manner of client-go's reflector. A 410 Gone (the
 * server compacted our resourceVersion) triggers a fresh list, which is diffed against the cache
 * so deletions missed meanwhile still surface. Any other watch end or error restarts the watch
 * from the last seen version after a backoff — client-node's own informer leaves that to us.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly cache = new Map<string, T>();
  /** Counters for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, gone: 0, errors: 0, bookmarks: 0 };
  private resourceVersion = '';
  private abort?: AbortController;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private failures = 0;
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  private readonly handlers: Array<(type: InformerEvent, obj: T) => void> = [];
  private readonly watcher: Watch;

  constructor(
    private readonly client: KubeClient,
    private readonly o: InformerOptions,
  ) {
    this.watcher = newWatch(client.config);
  }

  on(handler: (type: InformerEvent, obj: T) => void): this {
    this.handlers.push(handler);
    return this;
  }

  /** The version the next watch resumes from (a list's, an event's or a bookmark's). */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  get(namespace: string, name: string): T | undefined {
    return this.cache.get(`${namespace}/${name}`);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** Resolves after the first successful list. */
  hasSynced(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  start(): void {
    this.stopped = false;
    void this.relist();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private emit(type: InformerEvent, obj: T): void {
    for (const h of this.handlers) h(type, obj);
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    try {
      this.stats.lists++;
      const { items, resourceVersion } = await this.client.list<T>(this.o.apiVersion, this.o.kind, this.o.namespace, this.o.labelSelector, this.o.fieldSelector);
      if (this.stopped) return;
      const seen = new Set<string>();
      for (const item of items) {
        const obj = JSON.parse(JSON.stringify(item)) as T; // plain JSON, like watch events
        obj.apiVersion ??= this.o.apiVersion;
        obj.kind ??= this.o.kind;
        const key = cacheKey(obj);
        seen.add(key);
        const prev = this.cache.get(key);
        this.cache.set(key, obj);
        if (!prev) this.emit('ADDED', obj);
        else if (prev.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit('MODIFIED', obj);
      }
      for (const [key, obj] of this.cache) {
        if (!seen.has(key)) {
          this.cache.delete(key);
          this.emit('DELETED', obj);
        }
      }
      this.resourceVersion = resourceVersion;
      if (!this.synced) {
        this.synced = true;
        for (const w of this.syncWaiters.splice(0)) w();
      }
      await this.watch();
    } catch (err) {
      this.retry(err, () => this.relist());
    }
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const r = resourceFor(this.o.apiVersion, this.o.kind);
    const path = collectionPath(r, this.o.namespace);
    let gone = false;
    let got = false;
    this.stats.watches++;
    this.abort = await this.watcher.watch(
      path,
      {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        labelSelector: this.o.labelSelector,
        ...(this.o.fieldSelector ? { fieldSelector: this.o.fieldSelector } : {}),
        timeoutSeconds: this.o.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
      },
      (type: string, obj: T) => {
        got = true;
        if (type === 'ERROR') {
          const code = (obj as unknown as { code?: number }).code;
          if (code === 410) gone = true;
          return;
        }
        if (obj?.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
        if (type === 'BOOKMARK') {
          // Only a newer version: nothing to apply, but a resumed watch need not replay as much.
          this.stats.bookmarks++;
          return;
        }
        const key = cacheKey(obj);
        if (type === 'DELETED') this.cache.delete(key);
        else this.cache.set(key, obj);
        this.emit(type as InformerEvent, obj);
      },
      (err: unknown) => {
        if (this.stopped) return;
        if (gone || statusCode(err) === 410) {
          this.stats.gone++;
          this.o.log?.(`watch ${this.o.kind}: resourceVersion ${this.resourceVersion} expired, relisting`);
          void this.relist();
          return;
        }
        if (got) this.failures = 0;
        // Also a clean close (server timeout) or a quiet stream's idle timeout: resume from the
        // last version at once.
        this.retry(isIdleTimeout(err) ? undefined : err, () => this.watch());
      },
    );
  }

  private retry(err: unknown, again: () => Promise<void>): void {
    if (this.stopped) return;
    if (err) {
      this.stats.errors++;
      this.failures++;
      this.o.log?.(`watch ${this.o.kind} failed: ${err instanceof Error ? err.message : JSON.stringify(err)}; restarting`);
    }
    const delay = err ? watchRestartDelay(this.failures, this.o.restartDelayMs ?? 200) : 0;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void again().catch((e: unknown) => this.retry(e, again)), delay);
    this.timer.unref();
  }
}

import { ApiError, type ApiClient } from './api-client.ts';

interface Meta {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface ListWatchHandlers<T> {
  /** An object appeared or changed (also for every object of a relist). */
  upsert: (obj: T) => void;
  deleted: (obj: T) => void;
}

const keyOf = (o: Meta) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A list+watch of one collection (like client-go's reflector, as simple as the kubelet needs):
 * it lists, then watches from the list's resourceVersion with bookmarks, relists after 410 Gone
 * (compaction, an API server restart), and retries a broken connection after a second. A relist
 * reports objects that vanished meanwhile as deleted.
 */
export class ListWatch<T extends Meta> {
  readonly items = new Map<string, T>();
  private rv = '';
  private stopped = false;
  private abort = new AbortController();
  private firstSync?: Promise<void>;

  constructor(
    private readonly api: ApiClient,
    /** e.g. `/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1` */
    private readonly listPath: string,
    private readonly on: ListWatchHandlers<T>,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts the loop; resolves after the first successful list. */
  start(): Promise<void> {
    this.firstSync ??= new Promise<void>((resolve) => void this.loop(resolve));
    return this.firstSync;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async loop(synced: () => void): Promise<void> {
    const sep = this.listPath.includes('?') ? '&' : '?';
    while (!this.stopped) {
      try {
        if (!this.rv) {
          const list = await this.api.get<{ metadata: { resourceVersion: string }; items: T[] }>(this.listPath);
          const seen = new Set<string>();
          for (const o of list.items) {
            seen.add(keyOf(o));
            this.items.set(keyOf(o), o);
            this.on.upsert(o);
          }
          for (const [k, o] of [...this.items]) {
            if (seen.has(k)) continue;
            this.items.delete(k);
            this.on.deleted(o);
          }
          this.rv = list.metadata.resourceVersion;
          synced();
        }
        this.abort = new AbortController();
        const timeout = 240 + Math.floor(Math.random() * 60);
        await this.api.stream(`${this.listPath}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=${timeout}&resourceVersion=${this.rv}`, (line) => this.event(line), this.abort.signal);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.status === 410) {
          this.rv = '';
          continue;
        }
        this.log(`watch ${this.listPath}: ${(err as Error).message}; retrying`);
        await sleep(1000);
      }
    }
  }

  private event(line: string): void {
    let ev: { type: string; object: T & { code?: number } };
    try {
      ev = JSON.parse(line) as typeof ev;
    } catch {
      return;
    }
    const rv = ev.object.metadata?.resourceVersion;
    switch (ev.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.items.set(keyOf(ev.object), ev.object);
        this.on.upsert(ev.object);
        break;
      case 'DELETED':
        this.items.delete(keyOf(ev.object));
        this.on.deleted(ev.object);
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR':
        // 410 Gone: the resourceVersion was compacted away; relist.
        if (ev.object.code === 410) this.rv = '';
        this.abort.abort();
        return;
    }
    if (rv) this.rv = rv;
  }
}

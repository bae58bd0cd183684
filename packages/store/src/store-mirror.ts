/**
 * A local mirror of some resource kinds of a ResourceStore: list, then watch from the list's
 * revision; a watch that ends (compacted history, store restart) lists again. Every change
 * schedules one `onChange` (debounced), so a burst of events compiles one table.
 */
import type { Resource, ResourceKind } from '@orrery/spec';
import type { ResourceStore, Watch } from './types.ts';

export type MirroredObjects = ReadonlyMap<ResourceKind, ReadonlyMap<string, Resource>>;

export interface StoreMirrorOptions {
  store: ResourceStore;
  kinds: ResourceKind[];
  onChange: (objects: MirroredObjects) => void;
  onError: (err: unknown) => void;
  retryMs?: number;
  debounceMs?: number;
}

export interface StoreMirror {
  /** Resolves once every kind was listed once (the first onChange has run). */
  ready: Promise<void>;
  stop(): void;
}

const objectKey = (r: Resource) => `${r.metadata.namespace}/${r.metadata.name}`;

export function mirrorStore(o: StoreMirrorOptions): StoreMirror {
  const objects = new Map<ResourceKind, Map<string, Resource>>();
  const watches = new Set<Watch>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));

  const emit = (): void => {
    timer = undefined;
    if (stopped) return;
    if (objects.size < o.kinds.length) return; // not every kind listed yet: a partial table would drop routes
    o.onChange(objects);
    markReady();
  };
  const schedule = (): void => {
    timer ??= setTimeout(emit, o.debounceMs ?? 10);
  };

  const follow = async (kind: ResourceKind): Promise<void> => {
    while (!stopped) {
      try {
        const listed = await o.store.list(kind);
        const m = new Map(listed.items.map((r) => [objectKey(r), r]));
        objects.set(kind, m);
        schedule();
        const w = o.store.watch(kind, { sinceResourceVersion: listed.resourceVersion }, (e) => {
          if (e.type === 'deleted') m.delete(objectKey(e.object));
          else m.set(objectKey(e.object), e.object);
          schedule();
        });
        watches.add(w);
        try {
          await w.done;
        } finally {
          watches.delete(w);
        }
        if (stopped) return;
        o.onError(new Error(`${kind} watch ended; listing again`));
      } catch (err) {
        if (stopped) return;
        o.onError(err);
      }
      await new Promise((r) => setTimeout(r, o.retryMs ?? 1000));
    }
  };
  for (const kind of o.kinds) void follow(kind);

  return {
    ready,
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const w of watches) w.close();
    },
  };
}

import type { RegistryWatchEvent } from '@orrery/spec';
import type { Instance } from '../model/instance.ts';

/**
 * Another region's instances of one namespace, as its replication watch tells them: a snapshot
 * replaces the set, an upsert puts, a delete removes. `revision` is the resume position of the
 * last one applied (its SSE id, which stands before the event's revision while more changes of
 * that revision follow), the `sinceRevision` to resume with. Pure: the replicator feeds it.
 */
export class RegionMirror {
  private readonly instances = new Map<string, Instance>();
  revision = 0;
  /** True once a snapshot (or a resumed stream) made the set complete. */
  synced = false;

  apply(ev: RegistryWatchEvent, position: number = ev.revision): void {
    if (ev.type === 'snapshot') {
      this.instances.clear();
      for (const i of ev.instances) this.instances.set(keyOf(i), i);
      this.synced = true;
    } else if (ev.type === 'upsert') {
      this.instances.set(keyOf(ev.instance), ev.instance);
    } else {
      this.instances.delete(keyOf(ev.instance));
    }
    this.revision = Math.max(this.revision, position);
  }

  /** The other side lost our resume point: the next stream starts from a snapshot. */
  restart(): void {
    this.revision = 0;
  }

  values(): IterableIterator<Instance> {
    return this.instances.values();
  }

  get size(): number {
    return this.instances.size;
  }
}

function keyOf(i: Pick<Instance, 'namespace' | 'service' | 'instanceId'>): string {
  return `${i.namespace}\0${i.service}\0${i.instanceId}`;
}

import type { RegistryWatchEvent } from '@orrery/spec';
import type { Instance } from '../model/instance.ts';
import { onlyStampChanged } from '../model/heartbeat-age.ts';
import { matchesFilter, type InstanceFilter } from '../query/filter.ts';
import type { IndexChange } from '../etcd/instance-index.ts';

/** snapshot / upsert / delete: the event data line, as defined in @orrery/spec. */
export type WatchEvent = RegistryWatchEvent;

/**
 * Maps one change to what a watcher with `filter` must see: an upsert when the instance matches
 * now, a delete when it matched before and no longer does (or is gone), nothing otherwise —
 * nor for a refreshed heartbeat stamp, which changes no registration field. `now` / `prev`
 * are what the watcher can see: undefined when absent or hidden.
 */
export function eventForChange(filter: InstanceFilter, revision: number, now: Instance | undefined, prev: Instance | undefined): WatchEvent | undefined {
  if (now && prev && onlyStampChanged(prev, now)) return undefined;
  const nowMatches = now !== undefined && matchesFilter(filter, now);
  if (nowMatches) return { type: 'upsert', revision, instance: now };
  const prevMatches = prev !== undefined && matchesFilter(filter, prev);
  if (prevMatches) return { type: 'delete', revision, instance: { ...prev, revision } };
  return undefined;
}

/**
 * What an index change means to a watcher. By default an instance whose TTL passed without
 * renewal has left the candidate set: its `expire` is a delete, a renewal that brings it back is
 * an upsert, and etcd's later removal of the record says nothing more. With includeExpired the
 * TTL rule is ignored: only etcd's own changes count.
 */
export function eventForIndexChange(filter: InstanceFilter, change: IndexChange, includeExpired: boolean): WatchEvent | undefined {
  switch (change.type) {
    case 'expire':
      return includeExpired ? undefined : eventForChange(filter, change.revision, undefined, change.prev);
    case 'put': {
      const now = includeExpired || !change.hidden ? change.instance : undefined;
      const prev = includeExpired || !change.prevHidden ? change.prev : undefined;
      return eventForChange(filter, change.revision, now, prev);
    }
    case 'delete':
      return eventForChange(filter, change.revision, undefined, includeExpired || !change.prevHidden ? change.prev : undefined);
  }
}

/**
 * One SSE frame: the event name, the resume position as the SSE id (Last-Event-ID resumes after
 * it; the event's revision unless another event of that revision follows, event-positions.ts),
 * JSON data.
 */
export function formatEvent(ev: WatchEvent, position: number = ev.revision): string {
  return `event: ${ev.type}\nid: ${position}\ndata: ${JSON.stringify(ev)}\n\n`;
}

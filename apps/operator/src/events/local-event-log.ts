/**
 * Events on the local backend: the embedded store has no Event kind, so they live in memory, a
 * bounded ring per object (newest kept) over a bounded set of objects (least recently written
 * go first), and are served by the operator's `GET /v1/events` (store token). A restart forgets
 * them, as Kubernetes forgets Events after an hour.
 */
import type { OperatorEventRecord } from '@orrery/spec';
import type { EventSink, EventTarget, EventType, OperatorEvent } from './event-recorder.ts';
import { REPORTING_CONTROLLER } from './event-recorder.ts';
import type { SeriesEntry } from './event-series.ts';

/** One Event as `GET /v1/events` answers it (the fields `kubectl describe` shows). */
export type LocalEvent = OperatorEventRecord;

export interface LocalEventLogOptions {
  /** Events kept per object (default 50). */
  perObject?: number;
  /** Objects kept (default 2000). */
  objects?: number;
}

const objectKey = (t: Pick<EventTarget, 'kind' | 'namespace' | 'name'>) => `${t.kind}|${t.namespace}|${t.name}`;

export class LocalEventLog implements EventSink {
  private readonly byObject = new Map<string, LocalEvent[]>();
  private readonly perObject: number;
  private readonly objects: number;

  constructor(o: LocalEventLogOptions = {}) {
    this.perObject = o.perObject ?? 50;
    this.objects = o.objects ?? 2000;
  }

  async write(target: EventTarget, event: OperatorEvent & { type: EventType }, entry: SeriesEntry): Promise<number> {
    const key = objectKey(target);
    const list = this.byObject.get(key) ?? [];
    const i = list.findIndex((e) => e.name === entry.name);
    // A repeat (or a create after a dropped first write) updates the one Event of its series.
    const stored: LocalEvent = {
      name: entry.name,
      type: event.type,
      reason: event.reason,
      message: event.message,
      count: Math.max(entry.count, i >= 0 ? list[i]!.count + 1 : 0),
      firstTimestamp: i >= 0 ? list[i]!.firstTimestamp : entry.firstTimestamp,
      lastTimestamp: entry.lastTimestamp,
      involvedObject: { ...target },
      reportingController: REPORTING_CONTROLLER,
    };
    if (i >= 0) list.splice(i, 1);
    list.push(stored);
    if (list.length > this.perObject) list.splice(0, list.length - this.perObject);
    this.byObject.delete(key);
    this.byObject.set(key, list);
    if (this.byObject.size > this.objects) this.byObject.delete(this.byObject.keys().next().value!);
    return stored.count;
  }

  /** One object's Events, oldest first by their last occurrence; or every object's of a namespace (and kind). */
  list(filter: { namespace?: string; kind?: string; name?: string } = {}): LocalEvent[] {
    const out: LocalEvent[] = [];
    for (const list of this.byObject.values()) {
      for (const e of list) {
        const t = e.involvedObject;
        if ((filter.namespace === undefined || t.namespace === filter.namespace) && (filter.kind === undefined || t.kind === filter.kind) && (filter.name === undefined || t.name === filter.name)) out.push(e);
      }
    }
    return out.sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp));
  }
}

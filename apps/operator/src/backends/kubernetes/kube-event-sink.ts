import { hostname } from 'node:os';
import { ApiException } from '@kubernetes/client-node';
import { type EventSink, type EventTarget, type EventType, type OperatorEvent, REPORTING_CONTROLLER } from '../../events/event-recorder.ts';
import type { SeriesEntry } from '../../events/event-series.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { FIELD_MANAGER } from './render/labels.ts';

/**
 * A core v1 Event (what `kubectl describe` lists) for one series: named per series, so a repeat
 * is a patch of `count` and `lastTimestamp` on the same object, never a new one.
 */
export function kubeEventObject(target: EventTarget, event: OperatorEvent & { type: EventType }, entry: SeriesEntry, instance: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: entry.name, namespace: target.namespace },
    involvedObject: { apiVersion: target.apiVersion, kind: target.kind, name: target.name, namespace: target.namespace, ...(target.uid ? { uid: target.uid } : {}) },
    type: event.type,
    reason: event.reason,
    message: event.message,
    source: { component: FIELD_MANAGER },
    reportingComponent: REPORTING_CONTROLLER,
    reportingInstance: instance,
    firstTimestamp: entry.firstTimestamp,
    lastTimestamp: entry.lastTimestamp,
    count: entry.count,
  };
}

const code = (err: unknown) => (err instanceof ApiException ? err.code : undefined);

/**
 * Writes Events through the API server with the operator's RBAC (create and patch on events,
 * no get): a repeat patches the series' Event; when this process does not know the series yet
 * (a restart, a new leader term) and the Event exists, the patch's answer tells its count.
 */
export class KubeEventSink implements EventSink {
  constructor(
    private readonly client: KubeClient,
    private readonly instance = process.env.POD_NAME || hostname(),
  ) {}

  async write(target: EventTarget, event: OperatorEvent & { type: EventType }, entry: SeriesEntry, mode: 'create' | 'bump'): Promise<number> {
    const obj = kubeEventObject(target, event, entry, this.instance);
    const patch = (fields: Record<string, unknown>) => this.client.mergePatch({ apiVersion: 'v1', kind: 'Event', metadata: { name: entry.name, namespace: target.namespace }, ...fields });
    if (mode === 'bump') {
      try {
        await patch({ count: entry.count, lastTimestamp: entry.lastTimestamp });
        return entry.count;
      } catch (err) {
        if (code(err) !== 404) throw err; // expired (Events live an hour): write it anew
      }
    }
    try {
      await this.client.create(obj);
      return entry.count;
    } catch (err) {
      if (code(err) !== 409) throw err;
    }
    // Written by an earlier process or term: continue its count.
    const cur = await patch({ lastTimestamp: entry.lastTimestamp });
    const count = Number((cur as { count?: number }).count ?? 1) + entry.count;
    await patch({ count });
    return count;
  }
}

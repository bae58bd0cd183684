import { randomBytes } from 'node:crypto';
import type { ApiClient } from './api-client.ts';
import { rfc3339 } from './pod-status.ts';

export interface EventTarget {
  namespace: string;
  name: string;
  uid: string;
  /** `spec.containers{name}` for container events. */
  fieldPath?: string;
}

interface Recent {
  name: string;
  count: number;
  first: string;
  at: number;
}

/**
 * Core v1 Events about pods, as the kubelet records them (source kubelet/<node>): a repeat of the
 * same reason and message within ten minutes bumps the count of the existing Event instead of
 * creating another. Best effort: a failed write is logged, never retried.
 */
export class EventRecorder {
  private readonly recent = new Map<string, Recent>();

  constructor(
    private readonly api: ApiClient,
    private readonly node: string,
    private readonly log: (line: string) => void,
  ) {}

  record(t: EventTarget, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.write(t, type, reason, message).catch((e: Error) => {
      // A namespace being deleted refuses new events; nothing to say about that.
      if (!/being terminated/.test(e.message)) this.log(`event ${reason} for ${t.namespace}/${t.name}: ${e.message}`);
    });
  }

  private async write(t: EventTarget, type: string, reason: string, message: string): Promise<void> {
    const key = `${t.uid}|${t.fieldPath ?? ''}|${reason}|${message}`;
    const now = rfc3339();
    const prev = this.recent.get(key);
    if (prev && Date.now() - prev.at < 600_000) {
      prev.count++;
      prev.at = Date.now();
      await this.api.request('PATCH', `/api/v1/namespaces/${t.namespace}/events/${prev.name}`, { body: { count: prev.count, lastTimestamp: now } });
      return;
    }
    const name = `${t.name}.${randomBytes(8).toString('hex')}`;
    this.recent.set(key, { name, count: 1, first: now, at: Date.now() });
    if (this.recent.size > 2000) this.recent.delete(this.recent.keys().next().value!);
    await this.api.request('POST', `/api/v1/namespaces/${t.namespace}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: t.namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: t.namespace, name: t.name, uid: t.uid, ...(t.fieldPath ? { fieldPath: t.fieldPath } : {}) },
        reason,
        message,
        type,
        source: { component: 'kubelet', host: this.node },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        reportingComponent: 'kubelet',
        reportingInstance: this.node,
      },
    });
  }

  forget(uid: string): void {
    for (const k of [...this.recent.keys()]) if (k.startsWith(`${uid}|`)) this.recent.delete(k);
  }
}

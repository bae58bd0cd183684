/**
 * Where triggered calls go on the local backend (trigger/trigger-invoker.ts): --trigger-url, else
 * --router-url (what `orrery up` passes: its first router), else the first router replica this
 * operator runs itself for a StateSync (local-router-fleet.ts), whose port is known only once it
 * listens, so the URL is looked up at each call.
 */
import { RouterTriggerInvoker } from '../../trigger/router-trigger-invoker.ts';
import type { TriggerInvoker } from '../../trigger/trigger-invoker.ts';
import type { RouterReplica } from './local-router-fleet.ts';

export interface LocalTriggerInvokerOptions {
  triggerUrl?: string;
  routerUrl?: string;
  /** The routers this operator runs (none unless a StateSync targets them). */
  replicas?: () => RouterReplica[];
  now?: () => Date;
}

export function localTriggerInvoker(o: LocalTriggerInvokerOptions): TriggerInvoker {
  return new RouterTriggerInvoker({
    routerUrl: () => o.triggerUrl ?? o.routerUrl ?? o.replicas?.().find((r) => r.url)?.url,
    now: o.now,
  });
}

/**
 * Where triggered calls go on Kubernetes (trigger/trigger-invoker.ts): the router Service. The chart
 * passes its in-cluster address as --trigger-url, so a call never leaves the cluster even when
 * --router-url is the public address (router.publicUrl); without it, --router-url.
 */
import { RouterTriggerInvoker } from '../../trigger/router-trigger-invoker.ts';
import type { TriggerInvoker } from '../../trigger/trigger-invoker.ts';

export interface KubeTriggerInvokerOptions {
  triggerUrl?: string;
  routerUrl?: string;
  now?: () => Date;
}

export function kubeTriggerInvoker(o: KubeTriggerInvokerOptions): TriggerInvoker {
  const url = o.triggerUrl ?? o.routerUrl;
  return new RouterTriggerInvoker({ routerUrl: () => url, now: o.now });
}

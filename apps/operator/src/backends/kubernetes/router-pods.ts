import { Informer } from './informer.ts';
import type { KubeClient } from './kube-client.ts';
import { type PodAdminView, podAdminUrl } from './pod-admin-url.ts';

export interface RouterPodsOptions {
  /** Namespace of the router pods (the release namespace). */
  namespace: string;
  /** Label selector of the router pods, e.g. `app.kubernetes.io/component=router`. */
  labelSelector: string;
  /** Admin port when a pod declares no container port named `admin`. */
  adminPort: number;
  log?: (msg: string) => void;
}

/**
 * The admin URL of every running router pod, from a Pod informer. The admin API asks each
 * replica for its live sticky counters and statesync status; through the router Service it would
 * reach one replica per call and the console's totals would jump between replicas.
 */
export class RouterPods {
  private readonly pods: Informer;

  constructor(client: KubeClient, private readonly o: RouterPodsOptions) {
    this.pods = new Informer(client, { apiVersion: 'v1', kind: 'Pod', namespace: o.namespace, labelSelector: o.labelSelector, log: o.log });
  }

  start(): void {
    this.pods.start();
  }

  stop(): void {
    this.pods.stop();
  }

  hasSynced(): Promise<void> {
    return this.pods.hasSynced();
  }

  adminUrls(): string[] {
    return this.pods
      .list()
      .map((p) => podAdminUrl(p as PodAdminView, this.o.adminPort))
      .filter((u): u is string => u !== undefined)
      .sort();
  }
}

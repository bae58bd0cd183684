/**
 * What every operator test file on the real control plane sets up the same way: an admin client
 * with the chart's CRDs installed once, cleanups run after each test (last registered first), and
 * namespaces kept until the file ends (deleting one waits on its finalizers).
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { adminKubeConfig, createNamespace, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { KubeClient } from '../kube-client.ts';

export interface OperatorKubeSuite {
  /** The admin client; set once the file's beforeAll ran. */
  readonly client: KubeClient;
  /** Run after the current test. */
  cleanups: Array<() => Promise<void> | void>;
  /** A new namespace named `<prefix>-…`, deleted when the file ends. */
  freshNs(prefix: string): Promise<string>;
}

export function operatorKubeSuite(): OperatorKubeSuite {
  let client: KubeClient | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  const namespaces: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    const kc = adminKubeConfig();
    client = new KubeClient(kc);
    await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    for (const d of namespaces) await d();
  });
  return {
    get client() {
      if (!client) throw new Error('operatorKubeSuite: the client exists once beforeAll ran');
      return client;
    },
    cleanups,
    async freshNs(prefix) {
      const ns = await createNamespace(prefix);
      namespaces.push(ns.dispose);
      return ns.name;
    },
  };
}

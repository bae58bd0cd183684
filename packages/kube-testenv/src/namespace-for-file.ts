/**
 * The setup a Kubernetes test file repeats: the admin kubeconfig for its API clients, and a
 * namespace of its own, created before the file's tests and deleted after them (the real
 * namespace controller then removes what the tests left). Call it at the top of the file.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { adminKubeConfig, createNamespace } from './cluster-access.ts';

export interface FileNamespace {
  kc: KubeConfig;
  /** The namespace's name: known from the file's beforeAll on. */
  ns: () => string;
}

export function namespaceForFile(prefix: string): FileNamespace {
  let name: string | undefined;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ name, dispose } = await createNamespace(prefix));
  });
  afterAll(async () => dispose?.());
  return {
    kc: adminKubeConfig(),
    ns: () => {
      if (name === undefined) throw new Error(`the ${prefix} namespace is made in beforeAll: read it inside a hook or a test`);
      return name;
    },
  };
}

/**
 * vitest global setup of the `kubernetes` project: one real control plane and process kubelet
 * for every *.kube.test.ts file of the run, stopped afterwards. With a cluster already running
 * from `kube-testenv up` (packages/kube-testenv/bin), that one is used and left running.
 */
import type { TestProject } from 'vitest/node';
import { startLockOrRunning, TestCluster, type TestClusterInfo } from './test-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeTestEnv: TestClusterInfo;
  }
}

let cluster: TestCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  const reuse = await startLockOrRunning();
  if (reuse !== 'locked') {
    console.log(`[kube-testenv] using the running test cluster at ${reuse.server}`);
    project.provide('kubeTestEnv', reuse);
    return;
  }
  cluster = await TestCluster.start({ log: (l) => console.log(l) });
  project.provide('kubeTestEnv', cluster.info);
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
}

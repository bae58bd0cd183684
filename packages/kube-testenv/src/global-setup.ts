/**
 * vitest global setup of the `kubernetes` project: one real control plane and process kubelet
 * for every *.kube.test.ts file of the run, stopped afterwards. With a cluster already running
 * from `kube-testenv up` (packages/kube-testenv/bin), that one is used and left running. Either
 * way the apps' compiled entrypoints, which the process kubelet runs, are brought up to date first,
 * and only one run at a time uses the cluster (run-lock.ts).
 */
import type { TestProject } from 'vitest/node';
import { ensureAppBundles } from './app-bundles-build.ts';
import { acquireRunLock } from './run-lock.ts';
import { startLockOrRunning, TestCluster, type TestClusterInfo } from './test-cluster.ts';
import { REPO_ROOT } from './tool-paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeTestEnv: TestClusterInfo;
  }
}

let cluster: TestCluster | undefined;
let releaseRunLock: (() => void) | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Before anything else: another run may be using (or about to stop) the cluster.
  releaseRunLock = await acquireRunLock((l) => console.log(l));
  ensureAppBundles(REPO_ROOT, (l) => console.log(l));
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
  try {
    await cluster?.stop();
  } finally {
    releaseRunLock?.();
  }
}

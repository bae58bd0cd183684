/**
 * `orrery` inside a pod (issue 19, "talks to Kubernetes too … or in-cluster"): the orrery/cli
 * image (apps/cli/Dockerfile, run by the process kubelet from the same bundle the image carries)
 * in a pod of the test cluster, with no kubeconfig and no flag. It finds the API server from
 * `$KUBERNETES_SERVICE_HOST` and the mounted service-account token, and acts as that account:
 * what its Role allows works, what it does not is refused by the API server and says so.
 */
import { CoreV1Api, KubernetesObjectApi, RbacAuthorizationV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { adminKubeConfig, containerLog, createNamespace, eventually, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ACCOUNT = 'orrery-reader';
let kc: KubeConfig;
let core: CoreV1Api;
let ns: { name: string; dispose: () => Promise<void> };

beforeAll(async () => {
  kc = adminKubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ns = await createNamespace('cli-in-cluster');
  const objects = KubernetesObjectApi.makeApiClient(kc);
  await objects.create({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'web', namespace: ns.name },
    spec: { template: { source: { inline: "export default () => new Response('hi')" } } },
  } as never);
  // A read-only account: Functions and Revisions, get and list.
  await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: ACCOUNT } } });
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: ns.name,
    body: { metadata: { name: ACCOUNT }, rules: [{ apiGroups: ['orrery.dev'], resources: ['functions', 'revisions'], verbs: ['get', 'list'] }] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: { metadata: { name: ACCOUNT }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ACCOUNT }, subjects: [{ kind: 'ServiceAccount', name: ACCOUNT, namespace: ns.name }] },
  });
}, 120_000);
afterAll(async () => {
  await ns?.dispose();
});

/** Runs `orrery <args>` in a pod as ACCOUNT; resolves with how it ended and what it printed. */
async function orreryInPod(name: string, args: string[]): Promise<{ phase: string; log: string }> {
  await core.createNamespacedPod({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: { serviceAccountName: ACCOUNT, restartPolicy: 'Never', containers: [{ name: 'orrery', image: 'orrery/cli:0.1.0', args }] },
    },
  });
  const pod = await eventually<V1Pod>(`pod ${name} finished`, async () => {
    const p = await core.readNamespacedPod({ name, namespace: ns.name });
    return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? p : undefined;
  }, 90_000, 250);
  return { phase: pod.status!.phase!, log: containerLog(ns.name, name, 'orrery') };
}

describe('orrery in a pod, in-cluster', () => {
  it('lists Functions as the pod\'s service account, with no kubeconfig and no flag', { timeout: 120_000 }, async () => {
    const r = await orreryInPod('get', ['get', 'functions', '-n', ns.name, '-o', 'name']);
    expect(r.log).toContain('function.orrery.dev/web');
    expect(r.phase, r.log).toBe('Succeeded');
  });

  it('what the account may not do is refused by the API server, and nothing changes', { timeout: 120_000 }, async () => {
    const r = await orreryInPod('delete', ['delete', 'function', 'web', '-n', ns.name]);
    expect(r.phase, r.log).toBe('Failed');
    expect(r.log).toMatch(/forbidden/i);
    expect(r.log).toContain(`system:serviceaccount:${ns.name}:${ACCOUNT}`);
    const still = await KubernetesObjectApi.makeApiClient(kc).read({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'web', namespace: ns.name } });
    expect(still.metadata?.name).toBe('web');
  });
});

/**
 * Removes a test's Helm release so that nothing of it outlives the file. The Kubernetes tests share
 * one cluster: a MutatingWebhookConfiguration left behind with failurePolicy Fail refuses every
 * Orrery object the later files write ("no endpoints available for service orrery-webhook"), and
 * a namespace stuck on finalizers blocks the next install into it.
 *
 * The order is the one docs/operations.md gives users: delete the Orrery objects while the operator
 * still runs (it owns their finalizers), then uninstall, then the namespace.
 */
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { eventually, helm } from '@orrery/kube-testenv';

const GROUP = 'orrery.dev';
const VERSION = 'v1alpha1';
/** Plurals of the kinds with finalizers first (Functions own Revisions; the operator cleans both). */
const PLURALS = ['functions', 'registryclusters', 'revisions', 'statesyncs', 'environments'];
const WEBHOOK_KINDS = [
  ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
  ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
] as const;

type Listed = { items?: Array<{ metadata?: { name?: string; finalizers?: string[] } }> };

const gone = (err: unknown) => err instanceof ApiException && err.code === 404;
/** A 404 is what we wanted; anything else goes on up. */
const unlessGone = (err: unknown): undefined => {
  if (gone(err)) return undefined;
  throw err;
};

async function orreryObjects(custom: CustomObjectsApi, namespace: string): Promise<Array<{ plural: string; name: string; finalizers: string[] }>> {
  const out: Array<{ plural: string; name: string; finalizers: string[] }> = [];
  for (const plural of PLURALS) {
    const list = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural }).catch(() => ({ items: [] }))) as Listed;
    for (const i of list.items ?? []) out.push({ plural, name: i.metadata!.name!, finalizers: i.metadata?.finalizers ?? [] });
  }
  return out;
}

/**
 * Uninstalls `release` from `namespace` and deletes the namespace, waiting until both are gone.
 * Returns what had to be forced (empty when everything went the way a user's uninstall goes), so
 * the caller can print it.
 */
export async function teardownRelease(kc: KubeConfig, release: string, namespace: string): Promise<string[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const forced: string[] = [];

  // 1. The Orrery objects, while the operator is there to run their finalizers.
  for (const o of await orreryObjects(custom, namespace)) {
    await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: o.plural, name: o.name }).catch(unlessGone);
  }
  await eventually(`the Orrery objects in ${namespace} deleted by the operator`, async () => (await orreryObjects(custom, namespace)).length === 0, 120_000, 1000).catch((e: unknown) => forced.push(String(e)));

  // 2. The release.
  const out = await helm(['uninstall', release, '-n', namespace, '--wait', '--timeout', '3m'], { timeoutMs: 240_000 });
  if (out.code !== 0 && !/not found/.test(out.stderr)) forced.push(`helm uninstall ${release}: exit ${out.code}: ${out.stderr.trim()}`);

  // 3. Whatever the uninstall left that would poison the next file: the admission webhooks first.
  for (const [plural, kind] of WEBHOOK_KINDS) {
    const ref = { group: 'admissionregistration.k8s.io', version: 'v1', plural, name: `${release}-webhook` };
    type Meta = { metadata?: { creationTimestamp?: string; managedFields?: Array<{ manager?: string; operation?: string; time?: string }> } };
    const left = (await custom.getClusterCustomObject(ref).catch(unlessGone)) as Meta | undefined;
    if (!left) continue;
    // Who wrote it, and when: the way to find out why an uninstall left it.
    const writers = (left.metadata?.managedFields ?? []).map((f) => `${f.manager}/${f.operation}@${f.time}`).join(' ');
    forced.push(`${kind} ${ref.name} (created ${left.metadata?.creationTimestamp}; written by ${writers}) was still there after helm uninstall; deleted`);
    await custom.deleteClusterCustomObject(ref).catch(unlessGone);
  }
  // With the operator gone, a finalizer it did not get to run holds its object (and the namespace) forever.
  for (const o of await orreryObjects(custom, namespace)) {
    if (o.finalizers.length === 0) continue;
    forced.push(`${o.plural}/${o.name} kept finalizers ${o.finalizers.join(',')} after the operator was gone; removed`);
    await custom
      .patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: o.plural, name: o.name, body: [{ op: 'remove', path: '/metadata/finalizers' }] })
      .catch(unlessGone);
  }

  // 4. The namespace.
  await core.deleteNamespace({ name: namespace }).catch(unlessGone);
  await eventually(`namespace ${namespace} gone`, async () => core.readNamespace({ name: namespace }).then(() => false, (e: unknown) => gone(e)), 240_000, 1000).catch((e: unknown) => forced.push(String(e)));
  return forced;
}

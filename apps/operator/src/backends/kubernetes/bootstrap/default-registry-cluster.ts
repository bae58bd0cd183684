/**
 * The platform's own RegistryCluster, so `helm install` with no values gets a registry: the chart
 * names it (and so knows its Service, `<name>-registry`, and its generated tokens Secret,
 * `<name>-registry-tokens`, ahead of time) and the operator creates it once. The chart does not
 * render it: a RegistryCluster goes through the admission webhook, which is this operator and
 * cannot answer before it runs.
 */
import { GROUP_VERSION, RegistryClusterSpecSchema } from '@orrery/spec';
import { type KubeClient, type KubeObject, statusCode } from '../kube-client.ts';

export interface DefaultRegistryCluster {
  name: string;
  spec: Record<string, unknown>;
}

/** `--default-registry-cluster-spec` JSON, checked against the RegistryCluster schema so a typo fails at start, not in a retry loop. */
export function parseDefaultRegistryClusterSpec(json: string | undefined): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json ?? '{}');
  } catch {
    throw new Error('--default-registry-cluster-spec must be a JSON object (a RegistryCluster spec)');
  }
  const r = RegistryClusterSpecSchema.safeParse(value);
  if (!r.success || typeof value !== 'object' || value === null || Array.isArray(value)) {
    const issues = r.success ? 'not an object' : r.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ');
    throw new Error(`--default-registry-cluster-spec is not a valid RegistryCluster spec: ${issues}`);
  }
  return value as Record<string, unknown>;
}

export function renderDefaultRegistryCluster(d: DefaultRegistryCluster, namespace: string): KubeObject {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'RegistryCluster',
    metadata: { name: d.name, namespace, labels: { 'app.kubernetes.io/managed-by': 'orrery-operator', 'orrery.dev/default-registry-cluster': 'true' } },
    spec: d.spec,
  };
}

/**
 * Create it unless it exists (create-only: a user's later edits, or a deletion followed by their
 * own cluster of that name, are theirs). Retries until the API server accepts it: the webhook
 * answers only once an operator pod is Ready. Resolves true when created by this call.
 */
export async function ensureDefaultRegistryCluster(
  client: KubeClient,
  namespace: string,
  d: DefaultRegistryCluster,
  o: { retryMs?: number; signal?: AbortSignal; log?: (msg: string) => void } = {},
): Promise<boolean> {
  for (;;) {
    if (o.signal?.aborted) return false;
    try {
      if (await client.get(GROUP_VERSION, 'RegistryCluster', namespace, d.name)) return false;
      await client.create(renderDefaultRegistryCluster(d, namespace));
      o.log?.(`created the default RegistryCluster ${namespace}/${d.name}`);
      return true;
    } catch (err) {
      if (statusCode(err) === 409) return false;
      o.log?.(`default RegistryCluster ${namespace}/${d.name} not created yet (retrying): ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, o.retryMs ?? 5000));
    }
  }
}

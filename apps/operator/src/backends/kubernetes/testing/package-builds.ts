/**
 * What the package-build kube tests do with a packaged Function: start an in-process operator that
 * builds packages (the test builder image), store an archive as the CLI does, apply a Function
 * naming it, and wait on its status.build, its Ready condition and its worker's answer.
 */
import { eventually } from '@orrery/kube-testenv';
import type { BuildStatus, Condition } from '@orrery/spec';
import type { KubeClient, KubeObject } from '../kube-client.ts';
import { KubernetesFunctionOperator, type KubernetesOperatorOptions } from '../kube-function-operator.ts';
import { PACKAGE_ARCHIVE_KEY, packageConfigMapName } from '../package-build/package-build-names.ts';
import { REVISION_LABEL } from '../render/labels.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type PackagedFunction = KubeObject & { status?: { build?: BuildStatus; conditions?: Condition[] } };

const GV = 'orrery.dev/v1alpha1';
export const TEST_BUILDER_IMAGE = 'orrery/builder:test';

/** An operator for `namespace`, started, building with the test builder image into a 1Gi volume. */
export async function startBuildingOperator(
  client: KubeClient,
  namespace: string,
  o: { buildTimeoutSeconds?: number; pool?: KubernetesOperatorOptions['pool'] } = {},
): Promise<KubernetesFunctionOperator> {
  const op = new KubernetesFunctionOperator({
    client,
    namespace,
    packageBuilds: { builderImage: TEST_BUILDER_IMAGE, timeoutSeconds: o.buildTimeoutSeconds ?? 120, volume: { size: '1Gi', accessMode: 'ReadWriteOnce' } },
    ...(o.pool ? { pool: o.pool } : {}),
  });
  await op.start();
  return op;
}

/** The archive in the package store's ConfigMap, as `orrery deploy` writes it; its sha256. */
export async function storeArchive(client: KubeClient, ns: string, packed: { archive: Buffer; sha256: string }): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: packageConfigMapName(packed.sha256), namespace: ns }, binaryData: { [PACKAGE_ARCHIVE_KEY]: packed.archive.toString('base64') } });
  return packed.sha256;
}

/** A deploy-executor Function (timeout 30 s) with `template` over those defaults. */
export const applyFunction = (client: KubeClient, ns: string, name: string, template: Any) =>
  client.apply({ apiVersion: GV, kind: 'Function', metadata: { name, namespace: ns }, spec: { template: { executor: 'deploy', timeoutSeconds: 30, ...template } } });

export const functionOf = async (client: KubeClient, ns: string, name: string) => (await client.get<PackagedFunction>(GV, 'Function', ns, name))!;

/** status.build once it is in `phase`; on time-out the error says where it was instead. */
export const buildOf = (client: KubeClient, ns: string, name: string, phase: BuildStatus['phase'], timeoutMs = 120_000) =>
  eventually(`${name}: status.build ${phase}`, async () => {
    const b = (await functionOf(client, ns, name)).status?.build;
    if (b?.phase !== phase) throw new Error(`status.build: ${b ? `${b.phase} (${b.reason}): ${b.message ?? ''}` : 'none'}`);
    return b;
  }, timeoutMs, 300);

/** The Function's Ready condition once it is False. */
export const readyFalse = (client: KubeClient, ns: string, name: string) =>
  eventually(`${name}: Ready False`, async () => (await functionOf(client, ns, name)).status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False'), 60_000, 300);

/** What a ready worker pod of `revision` answers to `GET /`, at its pod IP. */
export async function workerAnswer(client: KubeClient, ns: string, revision: string): Promise<string> {
  const pod = await eventually(`a ready worker of ${revision}`, async () => {
    const pods = (await client.list<KubeObject & { status?: Any }>('v1', 'Pod', ns, `${REVISION_LABEL}=${revision}`)).items;
    return pods.find((p) => p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True'));
  }, 120_000, 300);
  return (await fetch(`http://${pod.status!.podIP as string}:8080/`)).text();
}

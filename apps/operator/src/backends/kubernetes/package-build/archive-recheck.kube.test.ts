/**
 * A missing package archive on the real API server (archive-recheck-backoff.ts): status.build says
 * `ArchiveMissing` and when the operator looks again, 5 s after the first look, then 10 s after
 * the second (not every 5 s for ever); once the archive is stored, a change of the Function's spec
 * looks at once and starts the build without waiting out the backoff.
 */
import { eventually } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesFunctionOperator } from '../kube-function-operator.ts';
import type { KubeClient, KubeObject } from '../kube-client.ts';
import { defaultServiceAccount } from '../testing/kube-fixtures.ts';
import { operatorKubeSuite } from '../testing/operator-kube-suite.ts';
import { applyFunction, functionOf, startBuildingOperator, storeArchive } from '../testing/package-builds.ts';
import { buildJobName, packageConfigMapName } from './package-build-names.ts';

const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let op: KubernetesFunctionOperator | undefined;
/** Only the ConfigMap's presence matters here, not its bytes: the build Job starting is what is checked. */
const SHA = 'c'.repeat(64);

const applyLate = (timeoutSeconds: number) => applyFunction(client, ns, 'late', { source: { package: { sha256: SHA } }, timeoutSeconds });
const buildOf = async () => (await functionOf(client, ns, 'late')).status?.build;
/** The message's look count and next look (ms since the epoch), once it says `looked <n> time(s)`. */
const looked = async (n: number) => {
  const m = /looked (\d+) times?, looks again at (\S+) or when the Function changes$/.exec((await buildOf())?.message ?? '');
  return m && Number(m[1]) === n ? Date.parse(m[2]!) : undefined;
};

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('pkg-recheck');
  await defaultServiceAccount(client, ns);
  op = await startBuildingOperator(client, ns, { buildTimeoutSeconds: 60 });
}, 120_000);

afterAll(async () => {
  await op?.stop();
});

describe('a missing package archive on Kubernetes', () => {
  it('is looked for again with a growing wait the status names, and at once when the spec changes', { timeout: 60_000 }, async () => {
    const applied = Date.now();
    await applyLate(30);
    const first = await eventually('the first miss', () => looked(1), 20_000, 200);
    expect(await buildOf()).toMatchObject({ phase: 'Pending', reason: 'ArchiveMissing' });
    expect((await buildOf())?.message).toContain(`ConfigMap ${packageConfigMapName(SHA)}`);
    // The message holds whole seconds: 5 s after the look, give or take the rounding and the reconcile's own time.
    expect(first - applied).toBeGreaterThanOrEqual(4_000);
    expect(first - applied).toBeLessThanOrEqual(8_000);

    // Other writes to the Function (the reconciler's status) do not make it look sooner: still one look until `first`.
    const second = await eventually('the second miss', () => looked(2), 15_000, 200);
    expect(Date.now()).toBeGreaterThanOrEqual(first - 1_000);
    expect(second - first).toBeGreaterThanOrEqual(9_000);
    expect(second - first).toBeLessThanOrEqual(12_000);

    // The archive arrives, then the spec changes: the build starts now, not at `second`.
    await storeArchive(client, ns, { archive: Buffer.from('not a real archive'), sha256: SHA });
    await applyLate(31);
    const job = await eventually('the build Job', async () => (await client.list<KubeObject>('batch/v1', 'Job', ns)).items.find((j) => j.metadata.name.startsWith('orrery-build-')), 15_000, 200);
    expect(Date.now()).toBeLessThan(second);
    const build = await eventually('status.build past ArchiveMissing', async () => {
      const b = await buildOf();
      return b && b.reason !== 'ArchiveMissing' ? b : undefined;
    }, 10_000, 200);
    expect(job.metadata.name).toBe(buildJobName(build.key));
  });
});

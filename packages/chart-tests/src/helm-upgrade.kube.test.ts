/**
 * `helm upgrade` from the previous chart version to this checkout's, under steady traffic, on the
 * real test cluster (issue 19, "Upgrades and recovery").
 *
 * "The previous chart version" is charts/orrery as of the most recent commit whose Chart.yaml
 * `version:` differs from the checkout's (previous-chart.ts; `git archive <commit> charts/orrery`).
 * CI clones the whole repository; in a shallow clone the test is skipped and says why.
 *
 * Images are mapped: the process kubelet runs this checkout's code for every orrery/* image,
 * whatever its tag. So the "old release" is the old chart — templates, values, CRDs — running
 * today's code, and the upgrade changes what the chart changed. To roll every platform pod as a
 * release with a new appVersion would, the upgrade also sets a new image tag on the operator,
 * router, statesvc and registry images; the runtime image (the workers') is kept, so revisions
 * whose Function did not change must not restart.
 *
 * Steps, as docs/operations.md "Upgrade" says: install the previous chart (its CRDs applied as
 * its first install did) with its defaults, deploy a stateless and a stateful Function, send
 * 20 requests a second through the router's Service from the node, apply the new CRDs, `helm
 * upgrade --wait`, keep the traffic 20 s more. Then: every answer was a 2xx with the right body,
 * the CRDs in the cluster are the checkout's, the revision pods kept their UIDs and restart
 * counts, and state written before the upgrade reads back.
 */
import { containerLog, installCrds, kubeRequest, REPO_ROOT } from '@orrery/kube-testenv';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { chartDir } from './chart-files.ts';
import { callFunction, greeter, statefulCounter } from './function-fixtures.ts';
import { chartVersion, extractPreviousChart, type PreviousChart } from './previous-chart.ts';
import { examples, ReleaseUnderTest } from './release-under-test.ts';
import { describeFailures, type Outcome, steadyTraffic } from './steady-traffic.ts';

const NS = 'orrery-upgrade';
const RATE = 20;
const AFTER_UPGRADE_MS = 20_000;
const NEW_TAG = 'upgrade-test';
/** ORRERY_PREVIOUS_CHART=<chart folder> upgrades from that chart instead (a release you ship from). */
const given = process.env.ORRERY_PREVIOUS_CHART;
const previous: PreviousChart = given ? { ok: true, commit: `folder ${given}`, version: chartVersion(readFileSync(join(given, 'Chart.yaml'), 'utf8')) ?? '?', dir: given } : extractPreviousChart(REPO_ROOT);
if (!previous.ok) console.warn(`helm-upgrade.kube.test.ts skipped: ${previous.reason}`);

/*
 * No request is retried, GET or POST: a drained router closes an idle connection only after the
 * keep-alive it announced (5 s) has passed, so Node's fetch (undici, which stops reusing a
 * connection 2 s before that) never sends on a connection the router is closing.
 */

const r = new ReleaseUnderTest(NS);
let base = '';
let traffic: Outcome[] = [];
type PodMark = { name: string; uid: string; restarts: number };
const podsBefore = new Map<string, PodMark[]>();

/** The revision pods of a Function (label orrery.dev/revision), with UID and restart count. */
async function revisionPods(revision: string): Promise<PodMark[]> {
  const pods = await r.core.listNamespacedPod({ namespace: NS, labelSelector: `orrery.dev/revision=${revision}` });
  return pods.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => ({ name: p.metadata!.name!, uid: p.metadata!.uid!, restarts: (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The last lines each revision pod's containers printed (for a failure message: a 500 names no cause). */
async function workerLogs(): Promise<string> {
  const pods = await r.core.listNamespacedPod({ namespace: NS, labelSelector: 'orrery.dev/revision' });
  return pods.items
    .flatMap((p) => p.spec!.containers.map((c) => `--- ${p.metadata!.name}/${c.name}\n${containerLog(NS, p.metadata!.name!, c.name).trim().split('\n').slice(-15).join('\n')}`))
    .join('\n');
}

/** Leaf paths of a JSON value (`a.b[0].c=value`), to say what differs between two pod templates. */
function leaves(v: unknown, at = ''): string[] {
  if (v === null || typeof v !== 'object') return [`${at}=${JSON.stringify(v)}`];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, Array.isArray(v) ? `${at}[${k}]` : at ? `${at}.${k}` : k));
}

/** How each revision's ReplicaSets' pod templates differ from its first one (for a failure message: who changed a template). */
async function replicaSetChanges(): Promise<string> {
  const sets = (await r.apps.listNamespacedReplicaSet({ namespace: NS, labelSelector: 'orrery.dev/revision' })).items.sort((a, b) => (a.metadata!.creationTimestamp! < b.metadata!.creationTimestamp! ? -1 : 1));
  const first = new Map<string, Set<string>>();
  const out: string[] = [];
  for (const rs of sets) {
    const rev = rs.metadata!.labels!['orrery.dev/revision']!;
    const { 'pod-template-hash': _hash, ...labels } = rs.spec!.template!.metadata?.labels ?? {};
    const mine = new Set(leaves({ ...rs.spec!.template, metadata: { ...rs.spec!.template!.metadata, labels } }));
    const base = first.get(rev);
    if (!base) first.set(rev, mine);
    else out.push(`${rs.metadata!.name} (${rs.metadata!.creationTimestamp?.toISOString()}): -${[...base].filter((x) => !mine.has(x)).join(' -')} +${[...mine].filter((x) => !base.has(x)).join(' +')}`);
  }
  return out.length ? `ReplicaSets with another template:\n${out.join('\n')}` : 'no revision ReplicaSet with another template';
}

/** The CRDs of a chart folder, by name: what `kubectl apply -f crds/` sends. */
function chartCrds(dir: string): Map<string, { spec: { versions: Array<{ name: string; schema: unknown }> } }> {
  const out = new Map<string, { spec: { versions: Array<{ name: string; schema: unknown }> } }>();
  for (const f of readdirSync(join(dir, 'crds')).filter((x) => x.endsWith('.yaml'))) {
    for (const d of parseAllDocuments(readFileSync(join(dir, 'crds', f), 'utf8'))) {
      const crd = d.toJS() as { metadata: { name: string }; spec: { versions: Array<{ name: string; schema: unknown }> } } | null;
      if (crd) out.set(crd.metadata.name, crd);
    }
  }
  return out;
}

beforeAll(async () => {
  if (!previous.ok) return;
  await r.namespaceFree();
  // The previous release's first install created its CRDs (helm installs crds/ only then).
  await installCrds(r.kc, join(previous.dir, 'crds'));
  const values = join(previous.dir, 'ci', 'defaults-values.yaml');
  await r.helm('install', previous.dir, ['--create-namespace', ...(readdirSync(join(previous.dir, 'ci')).includes('defaults-values.yaml') ? ['-f', values] : [])], 780_000);
  base = await r.routerBase();
}, 900_000);

afterAll(async () => {
  if (!previous.ok) return;
  await r.uninstall().catch((e: unknown) => console.error(String(e)));
  if (!given) rmSync(join(previous.dir, '..', '..'), { recursive: true, force: true });
}, 600_000);

describe.skipIf(!previous.ok)(`helm upgrade from the previous chart version (${previous.ok ? `${previous.version} at ${previous.commit.replace(/^([0-9a-f]{10})[0-9a-f]{30}$/, "$1")}` : 'none'}) under traffic`, () => {
  it('the previous version runs a stateless and a stateful Function; state written before the upgrade', { timeout: 420_000 }, async () => {
    for (const o of examples('environment.yaml', NS)) await r.apply(o);
    await r.apply(greeter(NS, 'hello', 'before and after'));
    await r.apply(statefulCounter(NS, 'tally'));
    for (const fn of ['hello', 'tally']) await r.untilTrue('Function', fn, 'Ready', 300_000);
    for (let i = 1; i <= 3; i++) {
      const res = await callFunction(base, NS, 'tally', { method: 'POST', query: '?key=before' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.count).toBe(i);
    }
    for (const rev of ['hello-00001', 'tally-00001']) {
      const pods = await revisionPods(rev);
      expect(pods, rev).toHaveLength(1);
      podsBefore.set(rev, pods);
    }
  });

  it(`helm upgrade --wait to ${chartDir.replace(`${REPO_ROOT}/`, '')} with ${RATE} requests a second through the router: not one fails`, { timeout: 900_000 }, async () => {
    let posts = 0;
    const t = steadyTraffic(RATE, (i) =>
      i % 2 === 0
        ? {
            name: 'GET hello',
            send: async () => {
              const res = await callFunction(base, NS, 'hello', { signal: AbortSignal.timeout(15_000) });
              return { ok: res.status === 200 && res.body.greeting === 'before and after', detail: `${res.status} ${res.text.slice(0, 200)}` };
            },
          }
        : {
            name: 'POST tally',
            send: async () => {
              posts++;
              const res = await callFunction(base, NS, 'tally', { method: 'POST', query: '?key=traffic', signal: AbortSignal.timeout(15_000) });
              return { ok: res.status === 200 && Number.isInteger(res.body.count), detail: `${res.status} ${res.text.slice(0, 200)}`, value: res.body.count };
            },
          },
    );
    try {
      await new Promise((res) => setTimeout(res, 5000));
      // docs/operations.md "Upgrade": the CRDs first, then the release.
      await installCrds(r.kc, join(chartDir, 'crds'));
      const tags = ['operator', 'router', 'statesvc', 'registry'].flatMap((c) => ['--set', `${c}.image.tag=${NEW_TAG}`]);
      await r.helm('upgrade', chartDir, ['-f', join(chartDir, 'ci', 'defaults-values.yaml'), ...tags], 780_000);
      await new Promise((res) => setTimeout(res, AFTER_UPGRADE_MS));
    } finally {
      traffic = await t.stop();
    }
    const failed = traffic.filter((o) => !o.ok);
    expect(failed.length, `${failed.length} of ${traffic.length} requests failed:\n${describeFailures(traffic)}\n${failed.length ? `${await replicaSetChanges()}\n${await workerLogs()}` : ''}`).toBe(0);
    expect(traffic.length).toBeGreaterThan(RATE * (AFTER_UPGRADE_MS / 1000));
    // Every increment counted once: the answers are 1…n and the stored value is n.
    const counts = traffic.filter((o) => o.name === 'POST tally').map((o) => o.value as number);
    expect(counts).toHaveLength(posts);
    expect([...counts].sort((a, b) => a - b)).toEqual(counts.map((_, i) => i + 1));
    expect((await callFunction(base, NS, 'tally', { query: '?key=traffic' })).body.count).toBe(counts.length);
  });

  it('every platform pod rolled to the new images', async () => {
    const pods = await r.core.listNamespacedPod({ namespace: NS, labelSelector: 'app.kubernetes.io/instance=orrery' });
    const byComponent = new Map<string, string[]>();
    for (const p of pods.items.filter((x) => !x.metadata?.deletionTimestamp)) {
      const c = p.metadata!.labels!['app.kubernetes.io/component']!;
      byComponent.set(c, [...(byComponent.get(c) ?? []), ...p.spec!.containers.map((k) => k.image!)]);
    }
    for (const c of ['operator', 'router', 'statesvc']) expect(byComponent.get(c)?.every((img) => img.endsWith(`:${NEW_TAG}`)), `${c}: ${byComponent.get(c)?.join(', ')}`).toBe(true);
  });

  it('the CRDs in the cluster are the checkout’s (schema of every served version)', async () => {
    const wanted = chartCrds(chartDir);
    expect(wanted.size).toBe(5);
    for (const [name, crd] of wanted) {
      // Raw JSON: client-node's typed model turns the CEL rules into classes (and drops what it does not know).
      const answer = await kubeRequest(r.kc, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      expect(answer.status, name).toBe(200);
      const live = answer.body as unknown as { spec: { versions: Array<{ name: string; schema: unknown }> } };
      expect(live.spec.versions.map((v) => ({ name: v.name, schema: v.schema })), name).toEqual(crd.spec.versions.map((v) => ({ name: v.name, schema: v.schema })));
    }
  });

  it('revision pods of the Functions that did not change kept their UIDs and restart counts', async () => {
    for (const [rev, before] of podsBefore) expect(await revisionPods(rev), `${rev}; ${await replicaSetChanges()}`).toEqual(before);
    // And the operator made no new revision of either.
    for (const fn of ['hello', 'tally']) expect((await r.read('orrery.dev/v1alpha1', 'Revision', `${fn}-00002`))?.metadata?.name, fn).toBeUndefined();
  });

  it('state written before the upgrade reads back after it', async () => {
    const res = await callFunction(base, NS, 'tally', { query: '?key=before' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ key: 'before', count: 3 });
  });
});

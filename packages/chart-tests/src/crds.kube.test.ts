/**
 * The CRDs of charts/orrery against a real kube-apiserver with no admission webhook installed:
 * they install and become Established, the examples are accepted, and what the single-object
 * rules forbid is refused by the API server itself (OpenAPI field rules with Kubernetes' words,
 * CEL rules with the webhook's words and reason code). Unknown fields are pruned and defaults
 * are the ones packages/spec declares.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ApiException, KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { adminKubeConfig, applyCrd, createNamespace, eventually, kubeRequest } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { renderCrds } from '../../spec/src/crd/render.ts';
import { parseResource, validate } from '../../spec/src/index.ts';
import type { Reason } from '../../spec/src/validate/reasons.ts';
import { celMessage } from '../../spec/src/validate/rules/object-rule.ts';
import { repoRoot } from './chart-files.ts';


type Obj = KubernetesObject & { spec?: Record<string, unknown> };
const GV = 'orrery.dev/v1alpha1';
let kc: KubeConfig;
let objects: KubernetesObjectApi;
let ns: { name: string; dispose: () => Promise<void> };

/** Creates an object; the API server's verdict as status code and message. */
async function create(obj: Obj): Promise<{ code: number; message: string; object?: Obj }> {
  try {
    const created = (await objects.create({ ...obj, metadata: { ...obj.metadata, namespace: ns.name } })) as Obj;
    return { code: 201, message: '', object: created };
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body = typeof err.body === 'string' ? (JSON.parse(err.body) as { message?: string }) : (err.body as { message?: string });
    return { code: err.code, message: body?.message ?? String(err.body) };
  }
}

/** Every reason some CRD has a CEL rule for (the message ends with `(reason)`). */
const CEL_REASONS = new Set<string>();
for (const text of renderCrds().values()) {
  for (const m of text.matchAll(/message: .*\(([a-z0-9_]+)\)['"]?$/gm)) CEL_REASONS.add(m[1]!);
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}
const orreryDocs = (files: string[]) =>
  files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o?.apiVersion === GV)
      .map((o) => ({ file: relative(repoRoot, file), obj: o })),
  );
const examples = join(repoRoot, 'examples');
const goodExamples = orreryDocs(yamlFiles(examples).filter((f) => !f.includes(`${join(examples, 'invalid')}`)));
const badExamples = orreryDocs(yamlFiles(join(examples, 'invalid')));

type Crd = { metadata: { name: string }; spec: { group: string; versions: Array<{ schema: { openAPIV3Schema: Record<string, unknown> } }> } };
const generatedCrds = [...renderCrds()].map(([file, text]) => ({ file, crd: parse(text) as Crd }));
const crdPath = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

beforeAll(async () => {
  kc = adminKubeConfig();
  objects = KubernetesObjectApi.makeApiClient(kc);
  // The chart's files (the staleness tests keep them equal to the generator's output).
  for (const { crd } of generatedCrds) {
    const r = await applyCrd(kc, crd);
    if (r.status >= 300) throw new Error(`${crd.metadata.name}: ${JSON.stringify(r.body)}`);
  }
  for (const { crd } of generatedCrds) {
    await eventually(`${crd.metadata.name} Established`, async () => {
      const { body } = await kubeRequest(kc, 'GET', crdPath(crd.metadata.name));
      return (body.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
  ns = await createNamespace('crds');
});
afterAll(async () => {
  await ns?.dispose();
});

describe('CRDs on the real API server (no webhook)', () => {
  it('all five are Established with the generated schema, CEL rules included', async () => {
    expect(generatedCrds).toHaveLength(5);
    for (const { file, crd } of generatedCrds) {
      const { body } = await kubeRequest(kc, 'GET', crdPath(crd.metadata.name));
      const got = body as unknown as Crd & { status: { conditions: Array<{ type: string; status: string }> } };
      expect(got.status.conditions.find((c) => c.type === 'Established')?.status, file).toBe('True');
      expect(got.spec.versions[0]!.schema, file).toEqual(crd.spec.versions[0]!.schema);
      expect(JSON.stringify(got.spec.versions[0]!.schema), file).toContain('x-kubernetes-validations');
    }
  });

  it.each(goodExamples.map((e) => [`${e.file} ${e.obj.kind}/${e.obj.metadata!.name}`, e.obj]))('accepts %s', async (_name, obj) => {
    const r = await create(obj);
    expect(r.message).toBe('');
    expect(r.code).toBe(201);
  });

  it.each(badExamples.map((e) => [`${e.file} ${e.obj.kind}/${e.obj.metadata!.name}`, e.obj]))(
    'judges %s as the webhook does, as far as one object tells',
    async (_name, obj) => {
      const errors = validate(obj);
      const r = await create({ ...obj, metadata: { ...obj.metadata, name: `x-${obj.metadata!.name}` } });
      if (errors.length === 0) {
        // Only a rule that reads another object (the Environment) refuses it: that is the webhook's.
        expect(r.code).toBe(201);
        return;
      }
      expect(r.code, r.message).toBe(422);
      // When an OpenAPI field rule fails, the API server skips the CEL rules it could not check.
      const celChecked = !r.message.includes('some validation rules were not checked');
      for (const e of errors) {
        // CEL rules speak with the webhook's words; OpenAPI field rules with Kubernetes', at the same path.
        const cel = CEL_REASONS.has(e.reason) && celChecked;
        expect(r.message, `${e.path} ${e.reason}`).toContain(cel ? celMessage(e.reason) : `${e.path}`);
      }
    },
  );
});

const source = { inline: 'export default async () => new Response("ok")' };
const fn = (name: string, spec: Record<string, unknown> = {}, template: Record<string, unknown> = {}): Obj => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name },
  spec: { template: { source, ...template }, ...spec },
});
const traffic = (...targets: Array<Record<string, unknown>>) => ({ traffic: targets });

/** Objects only a single-object rule refuses, the reason the webhook gives, and so the API server. */
const REFUSED: Array<[string, Obj, Reason]> = [
  ['traffic adding up to 90', fn('t-sum', traffic({ latestRevision: true, percent: 90 })), 'traffic_sum'],
  ['traffic adding up to 110', fn('t-sum2', traffic({ latestRevision: true, percent: 60 }, { revisionName: 't-sum2-00001', percent: 50 })), 'traffic_sum'],
  ['a tag used twice', fn('t-tags', traffic({ latestRevision: true, percent: 50, tag: 'a' }, { revisionName: 't-tags-00001', percent: 50, tag: 'a' })), 'tag_duplicate'],
  ['latestRevision with a revisionName', fn('t-both', traffic({ latestRevision: true, revisionName: 't-both-00001', percent: 100 })), 'traffic_revision_conflict'],
  ['a target naming no revision', fn('t-none', traffic({ percent: 100 })), 'traffic_revision_missing'],
  ["another function's revision", fn('t-foreign', traffic({ revisionName: 'other-00001', percent: 100 })), 'traffic_revision_foreign'],
  ['state with executor container', fn('s-container', { state: {} }, { executor: 'container' }), 'state_executor_container'],
  ['fencing without a sticky key', fn('s-fence', { state: { fencing: true } }), 'fencing_needs_sticky'],
  ['a blank sticky name', fn('s-sticky', { state: { sticky: { source: 'header', name: '   ' } } }), 'sticky_name'],
  ['a cookie name with a space', fn('s-cookie', { state: { sticky: { source: 'cookie', name: 'my session' } } }), 'sticky_cookie_name'],
  ['a negative default TTL', fn('s-ttl', { state: { defaultTTL: '-5m' } }), 'ttl_negative'],
  ['a duration in days', fn('s-days', { state: { defaultTTL: '2d' } }), 'duration_format'],
  ['an idempotency retention over 7 days', fn('s-idem', { state: { idempotencyRetention: '169h' } }), 'idempotency_retention'],
  ['a negative revision GC minimum age', fn('gc-age', { revisionGC: { minAge: '-1h' } }), 'revision_gc_min_age'],
  ['two sources', fn('src-two', {}, { source: { ...source, url: 'https://example.com/f.mjs' } }), 'source_exactly_one'],
  ['no source', fn('src-none', {}, { source: {} }), 'source_exactly_one'],
  ['an env name twice', fn('env-dup', {}, { env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }), 'env_duplicate'],
  ['an env var with both a value and a Secret', fn('env-both', {}, { env: [{ name: 'A', value: '1', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }), 'env_value_or_secret'],
  ['minScale above maxScale', fn('a-bounds', {}, { autoscaling: { minScale: 5, maxScale: 2 } }), 'autoscaling_scale_bounds'],
  ['activationScale above maxScale', fn('a-activation', {}, { autoscaling: { activationScale: 3, maxScale: 2 } }), 'autoscaling_activation_scale'],
  ['a 5 s stable window', fn('a-window', {}, { autoscaling: { window: '5s' } }), 'autoscaling_window'],
  ['a window of 6.5 s', fn('a-window2', {}, { autoscaling: { window: '6500ms' } }), 'autoscaling_window'],
  ['a scale-down delay over an hour', fn('a-delay', {}, { autoscaling: { scaleDownDelay: '61m' } }), 'autoscaling_scale_down_delay'],
  ['a burst capacity of -2', fn('a-burst', {}, { autoscaling: { targetBurstCapacity: -2 } }), 'autoscaling_burst_capacity'],
  ['a cron schedule of three fields', fn('c-three', { triggers: { cron: [{ name: 'x', schedule: '* * *' }] } }), 'cron_schedule'],
  ['a cron schedule stepping its seconds', fn('c-seconds', { triggers: { cron: [{ name: 'x', schedule: '*/5 * * * * *' }] } }), 'cron_schedule'],
  ['a cron schedule at hour 24', fn('c-hour', { triggers: { cron: [{ name: 'x', schedule: '0 24 * * *' }] } }), 'cron_schedule'],
  ['a cron GET with a body', fn('c-body', { triggers: { cron: [{ name: 'x', schedule: '@daily', method: 'GET', body: 'x' }] } }), 'cron_body_method'],
  ['a cron trigger sending Orrery-Trigger', fn('c-reserved', { triggers: { cron: [{ name: 'x', schedule: '@daily', headers: [{ name: 'ORRERY-Trigger', value: 'cron/y' }] }] } }), 'cron_header_reserved'],
  ['a cron trigger sending Host', fn('c-host', { triggers: { cron: [{ name: 'x', schedule: '@daily', headers: [{ name: 'Host', value: 'evil' }] }] } }), 'cron_header_reserved'],
  ['a cron header twice', fn('c-dup', { triggers: { cron: [{ name: 'x', schedule: '@daily', headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] }] } }), 'cron_header_duplicate'],
  ['a cron trigger name twice', fn('c-names', { triggers: { cron: [{ name: 'x', schedule: '@daily' }, { name: 'x', schedule: '@hourly' }] } }), 'trigger_name_duplicate'],
  ['a queue ack wait over an hour', fn('q-ack', { triggers: { queue: [{ name: 'x', stream: 'ORDERS', subject: 'orders', ackWait: '2h' }] } }), 'queue_ack_wait'],
  ['a queue backoff step over an hour', fn('q-backoff', { triggers: { queue: [{ name: 'x', stream: 'ORDERS', subject: 'orders', backoff: ['1s', '2h'] }] } }), 'queue_backoff'],
  ['a dead-letter subject the trigger reads', fn('q-loop', { triggers: { queue: [{ name: 'x', stream: 'ORDERS', subject: 'orders.*', deadLetterSubject: 'orders.dead' }] } }), 'queue_dead_letter_loop'],
  ['a domain listed twice', fn('d-dup', { domains: [{ host: 'shop.example.com' }, { host: 'shop.example.com' }] }), 'domain_duplicate'],
  ['an HTTPS redirect without TLS', fn('d-redirect', { domains: [{ host: 'shop.example.com', redirectToHTTPS: true }] }), 'domain_redirect_needs_tls'],
  ['a 60-character function name', fn('f'.repeat(60)), 'function_name_too_long'],
  ['a name with a dot', fn('dotted.name'), 'name_format'],
  [
    'a revision not named after its function',
    { apiVersion: GV, kind: 'Revision', metadata: { name: 'shop-x-00001' }, spec: { function: 'shop', template: { source } } },
    'revision_name',
  ],
  ['four registry voters', { apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'rc-even' }, spec: { replicas: 4 } }, 'replicas_odd'],
  [
    'a zero cleanup interval',
    { apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'rc-cleanup' }, spec: { registry: { cleanupInterval: '0s' } } },
    'positive_duration',
  ],
  [
    'a record TTL not longer than the sync period',
    { apiVersion: GV, kind: 'StateSync', metadata: { name: 'ss-ttl' }, spec: { target: {}, redis: { url: 'redis://r:6379' }, syncPeriod: '30s', recordTTL: '30s' } },
    'statesync_record_ttl_short',
  ],
  [
    'both a Redis URL and a Secret',
    { apiVersion: GV, kind: 'StateSync', metadata: { name: 'ss-redis' }, spec: { target: {}, redis: { url: 'redis://r', urlSecretRef: { name: 's', key: 'url' } } } },
    'statesync_redis',
  ],
  [
    'a syncable listed twice',
    { apiVersion: GV, kind: 'StateSync', metadata: { name: 'ss-dup' }, spec: { target: {}, redis: { url: 'redis://r' }, syncables: ['a', 'a'] } },
    'statesync_syncable_duplicate',
  ],
];

describe('single-object rules enforced by the API server itself', () => {
  it('covers every reason a CEL rule exists for', () => {
    const covered = new Set(REFUSED.map(([, , reason]) => reason));
    // name_too_long: Kubernetes itself refuses names over 63 characters in a namespace label first;
    // syncPeriod/recordTTL bounds: the examples/invalid StateSync above shows them.
    const elsewhere = new Set(['name_too_long', 'statesync_sync_period', 'statesync_record_ttl']);
    expect([...CEL_REASONS].filter((r) => !covered.has(r as Reason) && !elsewhere.has(r))).toEqual([]);
  });

  it.each(REFUSED)('refuses %s (%s)', async (_what, obj, reason) => {
    expect(validate(obj).map((e) => e.reason), 'the webhook refuses it for the same reason').toContain(reason);
    const r = await create(obj);
    expect(r.code, r.message).toBe(422);
    expect(r.message).toContain(celMessage(reason));
  });

  it('accepts the boundary cases of those rules', async () => {
    const fine: Obj[] = [
      fn('ok-split', traffic({ latestRevision: true, percent: 90, tag: 'latest' }, { revisionName: 'ok-split-00001', percent: 10, tag: 'stable' })),
      fn('ok-bounds', {}, { autoscaling: { minScale: 2, maxScale: 2, activationScale: 2, window: '6s', scaleDownDelay: '1h', targetBurstCapacity: -1 } }),
      fn('ok-unbounded', {}, { autoscaling: { minScale: 5, maxScale: 0 } }),
      fn('ok-state', { state: { defaultTTL: '0', sticky: { source: 'queryparam', name: 'session' } } }, { executor: 'pool' }),
      fn('ok-cookie', { state: { sticky: { source: 'cookie', name: "__Host-sid!#$%&'*+.^_`|~" } } }),
      fn('ok-header-spaces', { state: { sticky: { source: 'header', name: 'my session' } } }),
      fn('f'.repeat(57)),
      fn('ok-cron', {
        triggers: {
          cron: [
            { name: 'a', schedule: '*/15 9-17 * * MON-Fri', timeZone: 'Europe/Paris', method: 'GET', headers: [{ name: 'X-Report', value: 'daily' }, { name: 'Content-Type', value: 'text/plain' }] },
            { name: 'b', schedule: '0,30 * * * * *' },
            { name: 'c', schedule: '@yearly', body: '{}' },
            { name: 'd', schedule: '0 0 1,15 jan-jun ?', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 60 },
            { name: 'e', schedule: '5 4 * * 7' },
          ],
        },
      }),
      { apiVersion: GV, kind: 'Revision', metadata: { name: 'shop-00001' }, spec: { function: 'shop', template: { source } } },
      { apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'rc-five' }, spec: { replicas: 5, replaceUnhealthyAfter: '90s' } },
      { apiVersion: GV, kind: 'StateSync', metadata: { name: 'ss-ok' }, spec: { target: {}, redis: { url: 'redis://r' }, syncPeriod: '1m' } },
    ];
    for (const obj of fine) {
      expect(validate(obj), obj.metadata!.name).toEqual([]);
      const r = await create(obj);
      expect(r.message, obj.metadata!.name).toBe('');
    }
  });
});

describe('structural schema', () => {
  it('prunes unknown fields', async () => {
    const obj = fn('pruned', { stikcy: true }, { entrypiont: 'main' });
    expect(validate(obj).map((e) => e.reason)).toEqual(['unknown_field', 'unknown_field']);
    const r = await create(obj);
    expect(r.code, r.message).toBe(201);
    expect(r.object!.spec).not.toHaveProperty('stikcy');
    expect(r.object!.spec!.template).not.toHaveProperty('entrypiont');
  });

  it.each([
    ['Function', fn('defaulted', { state: {} })],
    ['RegistryCluster', { apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'rc-defaulted' }, spec: {} }],
    ['StateSync', { apiVersion: GV, kind: 'StateSync', metadata: { name: 'ss-defaulted' }, spec: { target: {}, redis: { url: 'redis://r' } } }],
    ['Environment', { apiVersion: GV, kind: 'Environment', metadata: { name: 'env-defaulted' }, spec: {} }],
  ])('fills in the defaults packages/spec declares (%s)', async (_kind, obj) => {
    const parsed = parseResource({ ...obj, metadata: { ...obj.metadata, namespace: 'default' } });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const r = await create(obj);
    expect(r.code, r.message).toBe(201);
    expect(r.object!.spec).toEqual(parsed.resource.spec);
  });

  it('refuses CEL rules that would cost too much: without maxItems on spec.traffic the CRD itself is refused', async () => {
    const crd = structuredClone(generatedCrds.find((c) => c.crd.metadata.name === 'functions.orrery.dev')!.crd);
    crd.metadata.name = 'functions.unbounded.orrery.dev';
    crd.spec.group = 'unbounded.orrery.dev';
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties as { spec: { properties: { traffic: Record<string, unknown> } } };
    const traffic = spec.spec.properties.traffic;
    delete traffic.maxItems;
    const refused = await kubeRequest(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
    expect(refused.status).toBe(422);
    expect(String(refused.body.message)).toMatch(/properties\[traffic\]\.x-kubernetes-validations\[1\]\.rule: Forbidden: estimated rule cost exceeds budget/);
    // with the generated bound the same CRD is fine
    traffic.maxItems = 100;
    const accepted = await kubeRequest(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  });
});

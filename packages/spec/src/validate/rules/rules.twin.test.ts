/**
 * Each single-object rule is written twice, in TypeScript (`holds`, for validate()) and in CEL
 * (for the CRD). This runs both on the same table of nodes and requires the same verdict, with
 * a CEL interpreter (cel-js) standing in for the API server's; the Kubernetes test in
 * packages/chart-tests (crds.kube.test.ts) runs whole objects through the real one.
 */
import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrds } from '../../crd/render.ts';
import { RESOURCE_KINDS } from '../../resource.ts';
import type { Reason } from '../reasons.ts';
import { isRecord, type ObjectRule, PLACED_RULES } from './object-rule.ts';
import { ROOT_RULES } from './root-rules.ts';

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode;
  items?: SchemaNode;
  'x-kubernetes-validations'?: Array<{ rule: string; message: string }>;
}

/** The CRD schema node every CEL rule sits on (template rules sit in two CRDs, with the same shape). */
const nodeOfRule = new Map<string, SchemaNode>();
const collect = (node: SchemaNode) => {
  for (const v of node['x-kubernetes-validations'] ?? []) nodeOfRule.set(v.rule, node);
  for (const child of Object.values(node.properties ?? {})) collect(child);
  if (node.items) collect(node.items);
  if (node.additionalProperties) collect(node.additionalProperties);
};
for (const text of renderCrds().values()) {
  collect((parse(text) as { spec: { versions: Array<{ schema: { openAPIV3Schema: SchemaNode } }> } }).spec.versions[0]!.schema.openAPIV3Schema);
}

/** JSON → CEL values as the API server builds them: `integer` fields are ints, `number` fields doubles. */
function celValue(value: unknown, node: SchemaNode | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => celValue(v, node?.items));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v, node?.properties?.[k] ?? node?.additionalProperties)]));
  if (typeof value === 'number' && node?.type === 'integer') return BigInt(value);
  return value;
}

// cel-js types `self` as dyn and knows sum() only on typed lists; Kubernetes' list library sums
// a list of ints whatever its static type, so the test registers that overload.
const cel = new Environment({ unlistedVariablesAreDyn: true })
  .registerFunction('list<dyn>.sum(): dyn', (list: bigint[]) => list.reduce((total, n) => total + n, 0n))
  // Kubernetes' strings library (cel-go ext.Strings): replace every occurrence.
  .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => s.replaceAll(from, to));
/** The CEL verdict; an evaluation error refuses the object, as in the API server. */
function celHolds(rule: ObjectRule, self: unknown): boolean {
  try {
    return cel.evaluate(rule.cel, { self: celValue(self, nodeOfRule.get(rule.cel)) }) === true;
  } catch {
    return false;
  }
}

const a = (n: number) => 'a'.repeat(n);
const fn = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec });
const rev = (name: string, fnName: string) => ({ metadata: { name }, spec: { function: fnName } });
const positive: Array<[unknown, boolean]> = [['30s', true], ['1ms', true], ['0s', false], ['0', false], ['-1s', false], ['bad', true]];

/** Per reason: nodes and whether they satisfy the rule. */
const CASES: Partial<Record<Reason, Array<[unknown, boolean]>>> = {
  name_format: [[fn('ok-name'), true], [fn('a'), true], [fn('Bad'), false], [fn('a.b'), false], [fn('-a'), false], [fn('a-'), false]],
  name_too_long: [[fn(a(63)), true], [fn(a(64)), false]],
  function_name_too_long: [[fn(a(57)), true], [fn(a(58)), false], [fn(a(63)), false], [fn(a(64)), true]],
  revision_name: [
    [rev('shop-00001', 'shop'), true],
    [rev('shop-123456', 'shop'), true],
    [rev('shop-1', 'shop'), false],
    [rev('shop-x-00001', 'shop'), false],
    [rev('shopping-00001', 'shop'), false],
    [rev('cart-00001', 'shop'), false],
    [rev('shop', 'shop'), false],
    [rev('a-b-00001', 'a-b'), true],
    [{ metadata: { name: 'anything' }, spec: {} }, true],
  ],
  traffic_revision_foreign: [
    [fn('shop', { traffic: [{ revisionName: 'shop-00001', percent: 100 }] }), true],
    [fn('shop', { traffic: [{ latestRevision: true, percent: 100 }] }), true],
    [fn('shop', {}), true],
    [fn('shop', { traffic: [{ revisionName: 'cart-00001', percent: 100 }] }), false],
    [fn('shop', { traffic: [{ latestRevision: true, percent: 50 }, { revisionName: 'shopping-00001', percent: 50 }] }), false],
  ],
  traffic_revision_conflict: [
    [{ latestRevision: true, revisionName: 'f-00001', percent: 10 }, false],
    [{ latestRevision: true, percent: 10 }, true],
    [{ revisionName: 'f-00001' }, true],
    [{ latestRevision: false, revisionName: 'f-00001' }, true],
  ],
  traffic_revision_missing: [
    [{ percent: 100 }, false],
    [{ latestRevision: false, percent: 100 }, false],
    [{ latestRevision: true }, true],
    [{ revisionName: 'f-00001' }, true],
  ],
  traffic_sum: [
    [[], true],
    [[{ percent: 100 }], true],
    [[{ percent: 90 }], false],
    [[{ percent: 60 }, { percent: 40 }], true],
    [[{ percent: 60 }, {}], false],
    [[{ percent: 0 }, { percent: 100 }], true],
    [[{ percent: 50 }, { percent: 50 }, { percent: 10 }], false],
  ],
  tag_duplicate: [
    [[], true],
    [[{ tag: 'a' }, { tag: 'b' }], true],
    [[{ tag: 'a' }, {}, {}], true],
    [[{ tag: 'a' }, { tag: 'a' }], false],
    [[{}, { tag: 'x' }, { tag: 'y' }, { tag: 'x' }], false],
  ],
  source_exactly_one: [
    [{ inline: 'export default () => 1' }, true],
    [{ configMapRef: { name: 'c' } }, true],
    [{ url: 'https://example.com/f.mjs' }, true],
    [{ inline: '', url: 'https://example.com/f.mjs' }, true],
    [{}, false],
    [{ inline: '' }, false],
    [{ inline: 'x', url: 'u' }, false],
    [{ inline: 'x', configMapRef: { name: 'c' }, url: 'u' }, false],
    [{ package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }, true],
    [{ inline: '', package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }, true],
    [{ inline: 'x', package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }, false],
    [{ url: 'u', package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }, false],
  ],
  env_duplicate: [[[], true], [[{ name: 'A' }, { name: 'B' }], true], [[{ name: 'A' }, { name: 'B' }, { name: 'A' }], false]],
  env_value_or_secret: [
    [{ name: 'A', value: 'x' }, true],
    [{ name: 'A' }, true],
    [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, true],
    [{ name: 'A', value: '', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, true],
    [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, false],
  ],
  autoscaling_scale_bounds: [
    [{}, true],
    [{ minScale: 2, maxScale: 5 }, true],
    [{ minScale: 3, maxScale: 3 }, true],
    [{ minScale: 5, maxScale: 0 }, true],
    [{ minScale: 5 }, true],
    [{ minScale: 5, maxScale: 2 }, false],
  ],
  autoscaling_activation_scale: [
    [{ activationScale: 2, maxScale: 2 }, true],
    [{ activationScale: 5, maxScale: 0 }, true],
    [{ activationScale: 5 }, true],
    [{ activationScale: 3, maxScale: 2 }, false],
  ],
  autoscaling_burst_capacity: [[-1, true], [0, true], [200, true], [1.5, true], [-2, false], [-0.5, false]],
  state_executor_container: [
    [{ template: { executor: 'pool' }, state: {} }, true],
    [{ template: { executor: 'container' } }, true],
    [{ template: {}, state: {} }, true],
    [{ template: { executor: 'container' }, state: {} }, false],
    [{ template: { executor: 'container' }, state: { keyspace: 'k' } }, false],
  ],
  fencing_needs_sticky: [
    [{}, true],
    [{ fencing: false }, true],
    [{ fencing: true, sticky: { source: 'header', name: 'x-k' } }, true],
    [{ fencing: false, sticky: { source: 'header', name: 'x-k' } }, true],
    [{ fencing: true }, false],
    [{ fencing: true, keyspace: 'k' }, false],
  ],
  sticky_name: [['X-Session-Id', true], [' a ', true], ['', false], ['   ', false], ['\t\n', false]],
  sticky_cookie_name: [
    [{ source: 'cookie', name: 'session' }, true],
    [{ source: 'cookie', name: '__Host-sid' }, true],
    [{ source: 'cookie', name: "a!#$%&'*+-.^_`|~Z9" }, true],
    [{ source: 'cookie', name: '   ' }, true],
    [{ source: 'header', name: 'my session' }, true],
    [{ source: 'queryparam', name: 'a=b' }, true],
    [{ name: 'a b' }, true],
    [{ source: 'cookie', name: 'my session' }, false],
    [{ source: 'cookie', name: 'sid=1' }, false],
    [{ source: 'cookie', name: 'a;b' }, false],
    [{ source: 'cookie', name: 'a,b' }, false],
    [{ source: 'cookie', name: '"sid"' }, false],
    [{ source: 'cookie', name: 'a/b' }, false],
    [{ source: 'cookie', name: 'sitzung-ä' }, false],
    [{ source: 'cookie', name: ' sid' }, false],
  ],
  domain_duplicate: [
    [[], true],
    [[{ host: 'a.example.com' }, { host: 'b.example.com' }], true],
    [[{ host: 'a.example.com' }, {}, {}], true],
    [[{ host: 'a.example.com' }, { host: 'a.example.com' }], false],
    [[{ host: 'b.example.com' }, { host: 'a.example.com', tls: { secretName: 's' } }, { host: 'a.example.com' }], false],
  ],
  domain_redirect_needs_tls: [
    [{ host: 'a.example.com' }, true],
    [{ host: 'a.example.com', redirectToHTTPS: false }, true],
    [{ host: 'a.example.com', redirectToHTTPS: true, tls: { secretName: 's' } }, true],
    [{ host: 'a.example.com', redirectToHTTPS: true }, false],
  ],
  cron_schedule: [
    ['* * * * *', true], ['*/15 * * * *', true], ['0 3 * * mon-fri', true], ['0 3 * * MON-Fri', true], ['0 0 1 jan,jul ?', true],
    ['@hourly', true], ['@daily', true], ['0,30 * * * * *', true], ['  0  0 * * *  ', true], ['0 0 1-31/2 * *', true], ['0 0 * * 7', true],
    ['@reboot', false], ['*/5 * * * * *', false], ['0,1,2,3,4,5,6 * * * * *', false], ['61 * * * *', false], ['0 24 * * *', false],
    ['5/10 * * * *', false], ['* * *', false], ['*/0 * * * *', false], ['0 0 * * 8', false], ['0 0 L * *', false], ['0 0 * * 1#2', false], ['', false],
  ],
  cron_header_reserved: [
    [{ name: 'X-Report', value: 'v' }, true], [{ name: 'Content-Type', value: 'v' }, true], [{ name: 'x-orrery', value: 'v' }, true], [{ value: 'v' }, true],
    [{ name: 'Orrery-Trigger', value: 'v' }, false], [{ name: 'ORRERY-SCHEDULED-TIME', value: 'v' }, false], [{ name: 'X-Orrery-Fence', value: 'v' }, false],
    [{ name: 'Host', value: 'v' }, false], [{ name: 'content-length', value: 'v' }, false], [{ name: 'Transfer-Encoding', value: 'v' }, false],
    [{ name: 'Proxy-Authorization', value: 'v' }, false], [{ name: 'X-Forwarded-For', value: 'v' }, false], [{ name: 'te', value: 'v' }, false],
  ],
  cron_header_duplicate: [
    [[], true], [[{ name: 'A' }, { name: 'B' }], true], [[{ name: 'A' }, {}, {}], true],
    [[{ name: 'A' }, { name: 'A' }], false], [[{ name: 'X-Key' }, { name: 'B' }, { name: 'x-key' }], false],
  ],
  cron_body_method: [
    [{ body: 'x' }, true], [{ method: 'POST', body: 'x' }, true], [{ method: 'GET' }, true], [{ method: 'GET', body: '' }, true],
    [{ method: 'GET', body: 'x' }, false],
  ],
  replicas_odd: [[1, true], [3, true], [5, true], [0, true], [2, false], [4, false]],
  statesync_redis: [[{ url: 'redis://r:6379' }, true], [{ urlSecretRef: { name: 's', key: 'url' } }, true], [{}, false], [{ url: 'redis://r', urlSecretRef: { name: 's', key: 'url' } }, false]],
  statesync_syncable_duplicate: [[[], true], [['a', 'b'], true], [['a', 'b', 'a'], false]],
  trigger_name_duplicate: [[[], true], [[{ name: 'a' }, { name: 'b' }], true], [[{ name: 'a' }, { name: 'b' }, { name: 'a' }], false]],
  queue_ack_wait: [['1s', true], ['30s', true], ['1h', true], ['1.5m', true], ['abc', true], ['0s', false], ['999ms', false], ['61m', false], ['-1s', false]],
  queue_backoff: [['0s', true], ['0', true], ['250ms', true], ['1h', true], ['1h1ms', false], ['-1s', false]],
  queue_dead_letter_loop: [
    [{ subject: 'orders.new' }, true],
    [{ subject: 'orders.new', deadLetterSubject: 'orders.dead' }, true],
    [{ subject: 'orders.*', deadLetterSubject: 'dead.orders' }, true],
    [{ subject: 'orders.*', deadLetterSubject: 'orders.new.dead' }, true],
    [{ subject: 'orders.>', deadLetterSubject: 'orders' }, true],
    [{ subject: 'a.b', deadLetterSubject: 'aXb' }, true],
    [{ subject: 'orders.*', deadLetterSubject: 'orders.dead' }, false],
    [{ subject: 'orders.>', deadLetterSubject: 'orders.dead.letters' }, false],
    [{ subject: '>', deadLetterSubject: 'anything' }, false],
    [{ subject: '*.new', deadLetterSubject: 'dead.new' }, false],
    [{ subject: 'orders.new', deadLetterSubject: 'orders.new' }, false],
  ],
  statesync_record_ttl_short: [
    [{}, true],
    [{ syncPeriod: '1m' }, true],
    [{ syncPeriod: '500ms', recordTTL: '1s' }, true],
    [{ syncPeriod: '0s', recordTTL: '0s' }, true],
    [{ syncPeriod: 'bad' }, true],
    [{ syncPeriod: '10s', recordTTL: '10s' }, false],
    [{ syncPeriod: '2m' }, false],
    [{ recordTTL: '5s' }, false],
    [{ syncPeriod: '1.5s', recordTTL: '1500ms' }, false],
  ],
  duration_format: [
    ['30s', true], ['1h30m', true], ['500ms', true], ['0', true], ['-5m', true], ['1.5h', true],
    ['abc', false], ['5', false], ['5 s', false], [' 5s', false], ['5d', false], ['', false], ['1h-5m', false], ['.5s', false],
  ],
  autoscaling_window: [['6s', true], ['7s', true], ['60m', true], ['1h', true], ['1.5m', true], ['abc', true], ['5s', false], ['61m', false], ['6500ms', false], ['0', false]],
  autoscaling_scale_down_delay: [['0s', true], ['0', true], ['30s', true], ['1h', true], ['1h1s', false], ['1500ms', false], ['-1s', false]],
  ttl_negative: [['0s', true], ['0', true], ['-0', true], ['1h', true], ['-5m', false], ['-1ms', false]],
  revision_gc_min_age: [['0s', true], ['0', true], ['48h', true], ['1.5h', true], ['-1s', false], ['-48h', false]],
  idempotency_retention: [['1s', true], ['24h', true], ['168h', true], ['1.5m', true], ['abc', true], ['0s', false], ['0', false], ['999ms', false], ['1500ms', false], ['169h', false], ['-1h', false]],
  positive_duration: positive,
  statesync_sync_period: positive,
  statesync_record_ttl: positive,
};

const allRules = [...new Set([...PLACED_RULES, ...RESOURCE_KINDS.flatMap((k) => ROOT_RULES[k])])];

describe('single-object rules: TypeScript and CEL twins agree', () => {
  it('finds the rules (the kinds place them when they load)', () => {
    expect(allRules.length).toBeGreaterThan(25);
  });

  it('every rule sits in a generated CRD and has cases both ways', () => {
    for (const rule of allRules) {
      expect(nodeOfRule.has(rule.cel), `${rule.reason} is in no CRD`).toBe(true);
      const cases = CASES[rule.reason] ?? [];
      expect(cases.some(([, ok]) => ok), `${rule.reason}: no valid case`).toBe(true);
      expect(cases.some(([, ok]) => !ok), `${rule.reason}: no invalid case`).toBe(true);
    }
  });

  it.each(allRules.flatMap((rule) => (CASES[rule.reason] ?? []).map(([self, ok]) => [rule.reason, JSON.stringify(self), ok, rule, self] as const)))(
    '%s: %s → %s',
    (_reason, _shown, ok, rule, self) => {
      expect(rule.holds(self), 'TypeScript').toBe(ok);
      expect(celHolds(rule, self), `CEL: ${rule.cel}`).toBe(ok);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { validate, type ValidationLookup } from './index.ts';
import { parsePath } from './path.ts';

const GV = 'orrery.dev/v1alpha1';

const BASE = {
  Function: {
    apiVersion: GV,
    kind: 'Function',
    metadata: { name: 'counter', namespace: 'demo' },
    spec: {
      template: { source: { inline: 'export default async () => new Response("ok")' }, environment: 'nodejs', executor: 'pool' },
      traffic: [
        { revisionName: 'counter-00001', percent: 90 },
        { latestRevision: true, percent: 10, tag: 'canary' },
      ],
      state: { keyspace: 'counter', maxKeys: 100, maxValueBytes: 1024, defaultTTL: '1h', sticky: { source: 'header', name: 'X-Session-Id' } },
    },
  },
  Revision: {
    apiVersion: GV,
    kind: 'Revision',
    metadata: { name: 'counter-00001', labels: { 'orrery.dev/function': 'counter' } },
    spec: { function: 'counter', template: { source: { inline: 'x' } } },
  },
  Environment: { apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs' }, spec: { image: 'orrery/runtime-node:1', poolSize: 3 } },
  RegistryCluster: { apiVersion: GV, kind: 'RegistryCluster', metadata: { name: 'registry' }, spec: { replicas: 3 } },
  StateSync: {
    apiVersion: GV,
    kind: 'StateSync',
    metadata: { name: 'router' },
    spec: { target: { component: 'router' }, redis: { url: 'redis://127.0.0.1:6379' }, keyPrefix: 'orrery', syncPeriod: '10s', recordTTL: '2m' },
  },
} as const;

type Kind = keyof typeof BASE;

/** Copy of BASE[kind] with `set` applied (value undefined = delete the field). */
function make(kind: Kind, set: Record<string, unknown> = {}): Record<string, unknown> {
  const obj = structuredClone(BASE[kind]) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(set)) {
    const segs = parsePath(path);
    let cur: Record<string | number, unknown> = obj;
    for (const seg of segs.slice(0, -1)) {
      if (cur[seg] === undefined) cur[seg] = {};
      cur = cur[seg] as Record<string | number, unknown>;
    }
    const last = segs.at(-1)!;
    if (value === undefined) delete cur[last];
    else cur[last] = value;
  }
  return obj;
}

const infiniteEnv: ValidationLookup = {
  environment: (ns, name) =>
    ns === 'demo' && name === 'shared'
      ? ({ ...BASE.Environment, metadata: { name: 'shared', namespace: 'demo' }, spec: { image: 'i', poolSize: 1, allowedFunctionsPerContainer: 'infinite' } })
      : ns === 'demo' && name === 'nodejs'
        ? ({ ...BASE.Environment, metadata: { name: 'nodejs', namespace: 'demo' }, spec: { image: 'i', poolSize: 1, allowedFunctionsPerContainer: 'single' } })
        : undefined,
};

interface Case {
  name: string;
  kind: Kind;
  set?: Record<string, unknown>;
  obj?: unknown;
  lookup?: ValidationLookup;
  errors: Array<[path: string, reason: string]>;
}

const CASES: Case[] = [
  // --- envelope
  { name: 'not an object', kind: 'Function', obj: 'hello', errors: [['', 'not_object']] },
  { name: 'null document', kind: 'Function', obj: null, errors: [['', 'not_object']] },
  { name: 'unknown kind', kind: 'Function', set: { kind: 'Service' }, errors: [['kind', 'unknown_kind']] },
  { name: 'missing kind', kind: 'Function', set: { kind: undefined }, errors: [['kind', 'unknown_kind']] },
  { name: 'wrong apiVersion', kind: 'Function', set: { apiVersion: 'serving.knative.dev/v1' }, errors: [['apiVersion', 'api_version']] },
  { name: 'missing apiVersion', kind: 'Environment', set: { apiVersion: undefined }, errors: [['apiVersion', 'api_version']] },
  { name: 'missing spec', kind: 'Environment', set: { spec: undefined }, errors: [['spec', 'required']] },
  { name: 'bad metadata.name', kind: 'Environment', set: { 'metadata.name': 'Node_JS' }, errors: [['metadata.name', 'name_format']] },
  { name: 'long metadata.name', kind: 'Environment', set: { 'metadata.name': 'a'.repeat(64) }, errors: [['metadata.name', 'name_too_long']] },
  { name: 'unknown top-level field', kind: 'Environment', set: { specs: {} }, errors: [['specs', 'unknown_field']] },
  { name: 'typo inside state', kind: 'Function', set: { 'spec.state.stikcy': { source: 'header' } }, errors: [['spec.state.stikcy', 'unknown_field']] },
  { name: 'wrong type', kind: 'Environment', set: { 'spec.poolSize': 'three' }, errors: [['spec.poolSize', 'type']] },
  // --- keyspace
  { name: 'keyspace with colon', kind: 'Function', set: { 'spec.state.keyspace': 'a:b' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace with hash', kind: 'Function', set: { 'spec.state.keyspace': 'counter#meta' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace upper case', kind: 'Function', set: { 'spec.state.keyspace': 'Counter' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace leading dash', kind: 'Function', set: { 'spec.state.keyspace': '-counter' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace trailing dash', kind: 'Function', set: { 'spec.state.keyspace': 'counter-' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace empty', kind: 'Function', set: { 'spec.state.keyspace': '' }, errors: [['spec.state.keyspace', 'keyspace_pattern']] },
  { name: 'keyspace 64 chars', kind: 'Function', set: { 'spec.state.keyspace': 'k'.repeat(64) }, errors: [['spec.state.keyspace', 'keyspace_too_long']] },
  { name: 'keyspace 63 chars ok', kind: 'Function', set: { 'spec.state.keyspace': 'k'.repeat(63) }, errors: [] },
  { name: 'keyspace single char ok', kind: 'Function', set: { 'spec.state.keyspace': '7' }, errors: [] },
  { name: 'keyspace absent ok (defaults to name)', kind: 'Function', set: { 'spec.state.keyspace': undefined }, errors: [] },
  // --- quotas and TTL
  { name: 'maxKeys negative', kind: 'Function', set: { 'spec.state.maxKeys': -1 }, errors: [['spec.state.maxKeys', 'quota_negative']] },
  { name: 'maxValueBytes negative', kind: 'Function', set: { 'spec.state.maxValueBytes': -5 }, errors: [['spec.state.maxValueBytes', 'quota_negative']] },
  { name: 'maxKeys fractional', kind: 'Function', set: { 'spec.state.maxKeys': 1.5 }, errors: [['spec.state.maxKeys', 'type']] },
  { name: 'quotas zero ok', kind: 'Function', set: { 'spec.state.maxKeys': 0, 'spec.state.maxValueBytes': 0 }, errors: [] },
  { name: 'defaultTTL negative', kind: 'Function', set: { 'spec.state.defaultTTL': '-30s' }, errors: [['spec.state.defaultTTL', 'ttl_negative']] },
  { name: 'defaultTTL garbage', kind: 'Function', set: { 'spec.state.defaultTTL': 'forever' }, errors: [['spec.state.defaultTTL', 'duration_format']] },
  { name: 'defaultTTL zero ok', kind: 'Function', set: { 'spec.state.defaultTTL': '0s' }, errors: [] },
  // --- sticky
  { name: 'sticky source body', kind: 'Function', set: { 'spec.state.sticky.source': 'body' }, errors: [['spec.state.sticky.source', 'sticky_source']] },
  { name: 'sticky source Cookie (enum is exact)', kind: 'Function', set: { 'spec.state.sticky.source': 'Cookie' }, errors: [['spec.state.sticky.source', 'sticky_source']] },
  { name: 'sticky cookie ok', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: 'session' } }, errors: [] },
  { name: 'sticky cookie with a prefix ok', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: '__Host-sid' } }, errors: [] },
  { name: 'sticky cookie every tchar ok', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: "a!#$%&'*+-.^_`|~Z9" } }, errors: [] },
  { name: 'fencing without a sticky key', kind: 'Function', set: { 'spec.state': { fencing: true } }, errors: [['spec.state.fencing', 'fencing_needs_sticky']] },
  { name: 'fencing with a sticky key ok', kind: 'Function', set: { 'spec.state.fencing': true }, errors: [] },
  { name: 'sticky cookie name with a space', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: 'my session' } }, errors: [['spec.state.sticky.name', 'sticky_cookie_name']] },
  { name: 'sticky cookie name with =', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: 'sid=1' } }, errors: [['spec.state.sticky.name', 'sticky_cookie_name']] },
  { name: 'sticky cookie name with ;', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: 'a;b' } }, errors: [['spec.state.sticky.name', 'sticky_cookie_name']] },
  { name: 'sticky cookie name quoted', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: '"sid"' } }, errors: [['spec.state.sticky.name', 'sticky_cookie_name']] },
  { name: 'sticky cookie name non-ASCII', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: 'sitzung-ä' } }, errors: [['spec.state.sticky.name', 'sticky_cookie_name']] },
  { name: 'sticky cookie name blank: one reason', kind: 'Function', set: { 'spec.state.sticky': { source: 'cookie', name: '  ' } }, errors: [['spec.state.sticky.name', 'sticky_name']] },
  { name: 'sticky header name with a space is not a cookie rule', kind: 'Function', set: { 'spec.state.sticky': { source: 'header', name: 'my session' } }, errors: [] },
  { name: 'sticky queryparam name with = is not a cookie rule', kind: 'Function', set: { 'spec.state.sticky': { source: 'queryparam', name: 'a=b' } }, errors: [] },
  { name: 'sticky source missing', kind: 'Function', set: { 'spec.state.sticky.source': undefined }, errors: [['spec.state.sticky.source', 'required']] },
  { name: 'sticky name empty', kind: 'Function', set: { 'spec.state.sticky.name': '' }, errors: [['spec.state.sticky.name', 'sticky_name']] },
  { name: 'sticky name blank', kind: 'Function', set: { 'spec.state.sticky.name': '   ' }, errors: [['spec.state.sticky.name', 'sticky_name']] },
  { name: 'sticky queryparam ok', kind: 'Function', set: { 'spec.state.sticky': { source: 'queryparam', name: 'session' } }, errors: [] },
  // --- executor and environment
  { name: 'state with container executor', kind: 'Function', set: { 'spec.template.executor': 'container' }, errors: [['spec.state', 'state_executor_container']] },
  { name: 'container executor without state ok', kind: 'Function', set: { 'spec.template.executor': 'container', 'spec.state': undefined }, errors: [] },
  { name: 'unknown executor', kind: 'Function', set: { 'spec.template.executor': 'lambda' }, errors: [['spec.template.executor', 'enum']] },
  { name: 'state on infinite environment', kind: 'Function', set: { 'spec.template.environment': 'shared' }, lookup: infiniteEnv, errors: [['spec.state', 'state_environment_infinite']] },
  { name: 'state on single environment ok', kind: 'Function', lookup: infiniteEnv, errors: [] },
  { name: 'infinite environment without state ok', kind: 'Function', set: { 'spec.template.environment': 'shared', 'spec.state': undefined }, lookup: infiniteEnv, errors: [] },
  { name: 'infinite environment not checked without lookup', kind: 'Function', set: { 'spec.template.environment': 'shared' }, errors: [] },
  // --- template
  { name: 'no source', kind: 'Function', set: { 'spec.template.source': {} }, errors: [['spec.template.source', 'source_exactly_one']] },
  { name: 'two sources', kind: 'Function', set: { 'spec.template.source.url': 'https://x/y.mjs' }, errors: [['spec.template.source', 'source_exactly_one']] },
  { name: 'package source ok', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', url: 'https://pkgs.example.com/p.tgz', main: 'src/handler.mjs' } } }, errors: [] },
  { name: 'package beside inline', kind: 'Function', set: { 'spec.template.source.package': { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } }, errors: [['spec.template.source', 'source_exactly_one']] },
  { name: 'package sha256 upper case', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } } }, errors: [['spec.template.source.package.sha256', 'package_sha256']] },
  { name: 'package sha256 short', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'abc' } } }, errors: [['spec.template.source.package.sha256', 'package_sha256']] },
  { name: 'package url not http', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', url: 'ftp://x/p.tgz' } } }, errors: [['spec.template.source.package.url', 'package_url']] },
  { name: 'package main with ..', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', main: '../etc/passwd' } } }, errors: [['spec.template.source.package.main', 'package_main']] },
  { name: 'package main absolute', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', main: '/srv/h.mjs' } } }, errors: [['spec.template.source.package.main', 'package_main']] },
  { name: 'package main hidden', kind: 'Function', set: { 'spec.template.source': { package: { sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', main: 'src/.env' } } }, errors: [['spec.template.source.package.main', 'package_main']] },
  { name: 'containerConcurrency negative', kind: 'Function', set: { 'spec.template.containerConcurrency': -1 }, errors: [['spec.template.containerConcurrency', 'container_concurrency']] },
  { name: 'containerConcurrency too high', kind: 'Function', set: { 'spec.template.containerConcurrency': 1001 }, errors: [['spec.template.containerConcurrency', 'container_concurrency']] },
  { name: 'timeoutSeconds zero', kind: 'Function', set: { 'spec.template.timeoutSeconds': 0 }, errors: [['spec.template.timeoutSeconds', 'timeout_seconds']] },
  { name: 'env name invalid', kind: 'Function', set: { 'spec.template.env': [{ name: '1BAD', value: 'x' }] }, errors: [['spec.template.env[0].name', 'env_name']] },
  { name: 'env duplicate', kind: 'Function', set: { 'spec.template.env': [{ name: 'A' }, { name: 'A' }] }, errors: [['spec.template.env[1].name', 'env_duplicate']] },
  { name: 'env from a Secret', kind: 'Function', set: { 'spec.template.env': [{ name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } }, { name: 'MODE', value: 'x' }] }, errors: [] },
  { name: 'env value and secret', kind: 'Function', set: { 'spec.template.env': [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }, errors: [['spec.template.env[0]', 'env_value_or_secret']] },
  { name: 'env secret name invalid', kind: 'Function', set: { 'spec.template.env': [{ name: 'A', valueFrom: { secretKeyRef: { name: '../etc', key: 'k' } } }] }, errors: [['spec.template.env[0].valueFrom.secretKeyRef.name', 'env_secret_name']] },
  { name: 'env secret key invalid', kind: 'Function', set: { 'spec.template.env': [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: '..' } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'a/b' } } }] }, errors: [['spec.template.env[0].valueFrom.secretKeyRef.key', 'env_secret_key'], ['spec.template.env[1].valueFrom.secretKeyRef.key', 'env_secret_key']] },
  // --- traffic
  { name: 'percents sum 110', kind: 'Function', set: { 'spec.traffic[1].percent': 20 }, errors: [['spec.traffic', 'traffic_sum']] },
  { name: 'percents sum 90', kind: 'Function', set: { 'spec.traffic[1].percent': 0 }, errors: [['spec.traffic', 'traffic_sum']] },
  { name: 'percent over 100', kind: 'Function', set: { 'spec.traffic': [{ latestRevision: true, percent: 101 }] }, errors: [['spec.traffic[0].percent', 'traffic_percent'], ['spec.traffic', 'traffic_sum']] },
  { name: 'percent negative', kind: 'Function', set: { 'spec.traffic[0].percent': -10, 'spec.traffic[1].percent': 110 }, errors: [['spec.traffic[0].percent', 'traffic_percent'], ['spec.traffic[1].percent', 'traffic_percent']] },
  { name: 'percent fractional', kind: 'Function', set: { 'spec.traffic[0].percent': 89.5, 'spec.traffic[1].percent': 10.5 }, errors: [['spec.traffic[0].percent', 'type'], ['spec.traffic[1].percent', 'type']] },
  { name: 'latestRevision with revisionName', kind: 'Function', set: { 'spec.traffic[1].revisionName': 'counter-00002' }, errors: [['spec.traffic[1].revisionName', 'traffic_revision_conflict']] },
  { name: 'latestRevision false without revisionName', kind: 'Function', set: { 'spec.traffic[1].latestRevision': false }, errors: [['spec.traffic[1]', 'traffic_revision_missing']] },
  { name: 'neither revisionName nor latestRevision', kind: 'Function', set: { 'spec.traffic[0].revisionName': undefined }, errors: [['spec.traffic[0]', 'traffic_revision_missing']] },
  { name: 'latestRevision false with revisionName ok', kind: 'Function', set: { 'spec.traffic[0].latestRevision': false }, errors: [] },
  { name: 'revision of another function', kind: 'Function', set: { 'spec.traffic[0].revisionName': 'cart-00001' }, errors: [['spec.traffic[0].revisionName', 'traffic_revision_foreign']] },
  { name: 'revisionName not DNS', kind: 'Function', set: { 'spec.traffic[0].revisionName': 'counter_00001' }, errors: [['spec.traffic[0].revisionName', 'traffic_revision_name'], ['spec.traffic[0].revisionName', 'traffic_revision_foreign']] },
  { name: 'tag starting with digit', kind: 'Function', set: { 'spec.traffic[1].tag': '1canary' }, errors: [['spec.traffic[1].tag', 'tag_format']] },
  { name: 'tag upper case', kind: 'Function', set: { 'spec.traffic[1].tag': 'Canary' }, errors: [['spec.traffic[1].tag', 'tag_format']] },
  { name: 'tag too long', kind: 'Function', set: { 'spec.traffic[1].tag': 't'.repeat(64) }, errors: [['spec.traffic[1].tag', 'tag_format']] },
  { name: 'duplicate tags', kind: 'Function', set: { 'spec.traffic[0].tag': 'canary' }, errors: [['spec.traffic[1].tag', 'tag_duplicate']] },
  { name: 'empty traffic ok', kind: 'Function', set: { 'spec.traffic': [] }, errors: [] },
  { name: 'traffic absent ok', kind: 'Function', set: { 'spec.traffic': undefined }, errors: [] },
  { name: 'zero-percent tagged target ok', kind: 'Function', set: { 'spec.traffic': [{ latestRevision: true, percent: 100 }, { revisionName: 'counter-00001', percent: 0, tag: 'old' }] }, errors: [] },
  // --- autoscaling
  { name: 'window too short', kind: 'Function', set: { 'spec.template.autoscaling.window': '5s' }, errors: [['spec.template.autoscaling.window', 'autoscaling_window']] },
  { name: 'window too long', kind: 'Function', set: { 'spec.template.autoscaling.window': '2h' }, errors: [['spec.template.autoscaling.window', 'autoscaling_window']] },
  { name: 'window fractional seconds', kind: 'Function', set: { 'spec.template.autoscaling.window': '6500ms' }, errors: [['spec.template.autoscaling.window', 'autoscaling_window']] },
  { name: 'window not a duration', kind: 'Function', set: { 'spec.template.autoscaling.window': 'a minute' }, errors: [['spec.template.autoscaling.window', 'duration_format']] },
  { name: 'window bounds ok', kind: 'Function', set: { 'spec.template.autoscaling': { window: '6s', scaleDownDelay: '1h' } }, errors: [] },
  { name: 'panic window 0', kind: 'Function', set: { 'spec.template.autoscaling.panicWindowPercentage': 0.5 }, errors: [['spec.template.autoscaling.panicWindowPercentage', 'autoscaling_panic_window']] },
  { name: 'panic window 101', kind: 'Function', set: { 'spec.template.autoscaling.panicWindowPercentage': 101 }, errors: [['spec.template.autoscaling.panicWindowPercentage', 'autoscaling_panic_window']] },
  { name: 'panic threshold 100', kind: 'Function', set: { 'spec.template.autoscaling.panicThresholdPercentage': 100 }, errors: [['spec.template.autoscaling.panicThresholdPercentage', 'autoscaling_panic_threshold']] },
  { name: 'panic threshold 1001', kind: 'Function', set: { 'spec.template.autoscaling.panicThresholdPercentage': 1001 }, errors: [['spec.template.autoscaling.panicThresholdPercentage', 'autoscaling_panic_threshold']] },
  { name: 'scale up rate 1', kind: 'Function', set: { 'spec.template.autoscaling.maxScaleUpRate': 1 }, errors: [['spec.template.autoscaling.maxScaleUpRate', 'autoscaling_scale_up_rate']] },
  { name: 'scale down rate 0.5', kind: 'Function', set: { 'spec.template.autoscaling.maxScaleDownRate': 0.5 }, errors: [['spec.template.autoscaling.maxScaleDownRate', 'autoscaling_scale_down_rate']] },
  { name: 'burst capacity -2', kind: 'Function', set: { 'spec.template.autoscaling.targetBurstCapacity': -2 }, errors: [['spec.template.autoscaling.targetBurstCapacity', 'autoscaling_burst_capacity']] },
  { name: 'burst capacity -1 ok', kind: 'Function', set: { 'spec.template.autoscaling.targetBurstCapacity': -1 }, errors: [] },
  { name: 'target 0.001', kind: 'Function', set: { 'spec.template.autoscaling.target': 0.001 }, errors: [['spec.template.autoscaling.target', 'autoscaling_target']] },
  { name: 'utilization 0', kind: 'Function', set: { 'spec.template.autoscaling.targetUtilizationPercentage': 0 }, errors: [['spec.template.autoscaling.targetUtilizationPercentage', 'autoscaling_utilization']] },
  { name: 'minScale above maxScale', kind: 'Function', set: { 'spec.template.autoscaling': { minScale: 5, maxScale: 2 } }, errors: [['spec.template.autoscaling.minScale', 'autoscaling_scale_bounds']] },
  { name: 'minScale with unbounded maxScale ok', kind: 'Function', set: { 'spec.template.autoscaling': { minScale: 5, maxScale: 0 } }, errors: [] },
  { name: 'minScale negative', kind: 'Function', set: { 'spec.template.autoscaling.minScale': -1 }, errors: [['spec.template.autoscaling.minScale', 'autoscaling_min_scale']] },
  { name: 'maxScale negative', kind: 'Function', set: { 'spec.template.autoscaling.maxScale': -1 }, errors: [['spec.template.autoscaling.maxScale', 'autoscaling_max_scale']] },
  { name: 'initialScale negative', kind: 'Function', set: { 'spec.template.autoscaling.initialScale': -1 }, errors: [['spec.template.autoscaling.initialScale', 'autoscaling_initial_scale']] },
  { name: 'activationScale 0', kind: 'Function', set: { 'spec.template.autoscaling.activationScale': 0 }, errors: [['spec.template.autoscaling.activationScale', 'autoscaling_activation_scale']] },
  { name: 'activationScale above maxScale', kind: 'Function', set: { 'spec.template.autoscaling': { activationScale: 4, maxScale: 3 } }, errors: [['spec.template.autoscaling.activationScale', 'autoscaling_activation_scale']] },
  { name: 'scaleDownDelay negative', kind: 'Function', set: { 'spec.template.autoscaling.scaleDownDelay': '-1s' }, errors: [['spec.template.autoscaling.scaleDownDelay', 'autoscaling_scale_down_delay']] },
  { name: 'metric unknown', kind: 'Function', set: { 'spec.template.autoscaling.metric': 'cpu' }, errors: [['spec.template.autoscaling.metric', 'enum']] },
  { name: 'revision template autoscaling checked too', kind: 'Revision', set: { 'spec.template.autoscaling': { window: '1s' } }, errors: [['spec.template.autoscaling.window', 'autoscaling_window']] },
  // --- revision
  { name: 'revision name not numbered', kind: 'Revision', set: { 'metadata.name': 'counter-v2' }, errors: [['metadata.name', 'revision_name']] },
  { name: 'revision label mismatch', kind: 'Revision', set: { 'metadata.labels': { 'orrery.dev/function': 'cart' } }, errors: [['metadata.labels["orrery.dev/function"]', 'revision_label']] },
  { name: 'function name leaves no room for revision suffix', kind: 'Function', set: { 'metadata.name': 'f'.repeat(58), 'spec.traffic': [] }, errors: [['metadata.name', 'function_name_too_long']] },
  { name: 'function name of 57 chars ok', kind: 'Function', set: { 'metadata.name': 'f'.repeat(57), 'spec.traffic': [] }, errors: [] },
  { name: 'revision without function', kind: 'Revision', set: { 'spec.function': undefined }, errors: [['spec.function', 'required']] },
  // --- environment
  { name: 'poolSize negative', kind: 'Environment', set: { 'spec.poolSize': -1 }, errors: [['spec.poolSize', 'pool_size']] },
  { name: 'allowedFunctionsPerContainer unknown', kind: 'Environment', set: { 'spec.allowedFunctionsPerContainer': 'many' }, errors: [['spec.allowedFunctionsPerContainer', 'enum']] },
  // --- registry cluster
  { name: 'replicas even', kind: 'RegistryCluster', set: { 'spec.replicas': 4 }, errors: [['spec.replicas', 'replicas_odd']] },
  { name: 'replicas zero', kind: 'RegistryCluster', set: { 'spec.replicas': 0 }, errors: [['spec.replicas', 'replicas_min']] },
  { name: 'replicas negative', kind: 'RegistryCluster', set: { 'spec.replicas': -3 }, errors: [['spec.replicas', 'replicas_min']] },
  { name: 'replicas 1 ok', kind: 'RegistryCluster', set: { 'spec.replicas': 1 }, errors: [] },
  { name: 'replicas 5 ok', kind: 'RegistryCluster', set: { 'spec.replicas': 5 }, errors: [] },
  { name: 'cleanupInterval zero', kind: 'RegistryCluster', set: { 'spec.registry': { cleanupInterval: '0s' } }, errors: [['spec.registry.cleanupInterval', 'positive_duration']] },
  // --- state sync
  { name: 'syncPeriod zero', kind: 'StateSync', set: { 'spec.syncPeriod': '0s' }, errors: [['spec.syncPeriod', 'statesync_sync_period']] },
  { name: 'syncPeriod negative', kind: 'StateSync', set: { 'spec.syncPeriod': '-10s' }, errors: [['spec.syncPeriod', 'statesync_sync_period']] },
  { name: 'recordTTL zero', kind: 'StateSync', set: { 'spec.recordTTL': '0' }, errors: [['spec.recordTTL', 'statesync_record_ttl']] },
  { name: 'recordTTL not longer than syncPeriod', kind: 'StateSync', set: { 'spec.recordTTL': '10s' }, errors: [['spec.recordTTL', 'statesync_record_ttl_short']] },
  { name: 'keyPrefix empty', kind: 'StateSync', set: { 'spec.keyPrefix': '' }, errors: [['spec.keyPrefix', 'statesync_key_prefix']] },
  { name: 'keyPrefix with brace', kind: 'StateSync', set: { 'spec.keyPrefix': 'a{b}' }, errors: [['spec.keyPrefix', 'statesync_key_prefix']] },
  { name: 'redis url and secret both', kind: 'StateSync', set: { 'spec.redis.urlSecretRef': { name: 'redis', key: 'url' } }, errors: [['spec.redis', 'statesync_redis']] },
  { name: 'redis neither', kind: 'StateSync', set: { 'spec.redis': {} }, errors: [['spec.redis', 'statesync_redis']] },
  { name: 'duplicate syncable', kind: 'StateSync', set: { 'spec.syncables': ['sticky-owners', 'sticky-owners'] }, errors: [['spec.syncables[1]', 'statesync_syncable_duplicate']] },
  // --- several at once: all errors are reported
  {
    name: 'every error in one document',
    kind: 'Function',
    set: { 'spec.state.keyspace': 'a#b', 'spec.state.maxKeys': -1, 'spec.traffic[1].tag': 'Bad', 'spec.traffic[0].percent': 50, 'spec.template.executor': 'container' },
    errors: [
      ['spec.state.keyspace', 'keyspace_pattern'],
      ['spec.state.maxKeys', 'quota_negative'],
      ['spec.traffic[1].tag', 'tag_format'],
      ['spec.traffic', 'traffic_sum'],
      ['spec.state', 'state_executor_container'],
    ],
  },
];

function sorted(list: Array<[string, string]>): string[] {
  return list.map(([p, r]) => `${p} ${r}`).sort();
}

describe('validate', () => {
  it('has at least 60 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  for (const kind of Object.keys(BASE) as Kind[]) {
    it(`base ${kind} is valid`, () => {
      expect(validate(BASE[kind])).toEqual([]);
    });
  }

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const obj = 'obj' in c ? c.obj : make(c.kind, c.set);
    const errors = validate(obj, c.lookup);
    expect(sorted(errors.map((e) => [e.path, e.reason]))).toEqual(sorted(c.errors));
    for (const e of errors) expect(e.message.length).toBeGreaterThan(10);
  });

  it('explains why ":" and "#" cannot appear in a keyspace', () => {
    const [error] = validate(make('Function', { 'spec.state.keyspace': 'a:b' }));
    expect(error?.message).toMatch(/":".*token derivation info string/);
    expect(error?.message).toMatch(/"#".*#meta.*accounting/);
    expect(error?.message).toContain('"a:b"');
  });
});

import type { RegistryEndpoint, RegistryInstance, RegistryInstanceRecord } from '@orrery/spec';
import {
  formatServiceName,
  parseServiceName,
  SEGMENT_FIELDS,
  segmentRun,
  type Parsed,
  type ServiceSegments,
} from './service-name.ts';

export const DEFAULT_LEASE_TTL_SECONDS = 30;
export const DEFAULT_ENDPOINT_WEIGHT = 100;
/** etcd refuses leases above this; a week is plenty for a registry instance. */
export const MAX_LEASE_TTL_SECONDS = 7 * 24 * 3600;

/** The wire shapes are defined once in @orrery/spec (registry-http.ts); the model uses them as they are. */
export type Endpoint = RegistryEndpoint;

/** What is stored in etcd (the value) for one instance. */
export type InstanceRecord = RegistryInstanceRecord;

/** An instance as answered to clients: the record plus where it sits in etcd's history. */
export type Instance = RegistryInstance;

export interface InstanceKey {
  namespace: string;
  service: string;
  instanceId: string;
}

const NAMESPACE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const INSTANCE_ID = /^[A-Za-z0-9](?:[A-Za-z0-9._:@-]{0,251}[A-Za-z0-9])?$/;
const LABEL_KEY = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,251}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/;
const PROTOCOL = /^[a-z][a-z0-9+.-]{0,31}$/;
const ENDPOINT_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/;
const MAX_METADATA_VALUE = 4096;
const MAX_ENDPOINTS = 32;

export function isValidNamespace(ns: string): boolean {
  return NAMESPACE.test(ns);
}
export function isValidLabelKey(key: string): boolean {
  return LABEL_KEY.test(key);
}
export function isValidLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

function fail<T>(message: string): Parsed<T> {
  return { ok: false, message };
}

/**
 * A client's value as an error message shows it: a string quoted (and shortened), anything else
 * by its kind. Never serialised: JSON.stringify of a value nested a few thousand levels deep
 * (which fits in a 64 KiB body) overflows the stack.
 */
export function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (v === null) return 'null';
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(body: Record<string, unknown>, field: string): Parsed<string | undefined> {
  const v = body[field];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  if (typeof v !== 'string') return fail(`${field} must be a string`);
  return { ok: true, value: v };
}

/** namespace + service (+ segments) + instanceId: the identity shared by every write call. */
export function parseIdentity(body: unknown): Parsed<InstanceKey & ServiceSegments> {
  if (!isObject(body)) return fail('request body must be a JSON object');
  const ns = optString(body, 'namespace');
  if (!ns.ok) return ns;
  if (!ns.value) return fail('namespace is required, e.g. "prod"');
  if (!isValidNamespace(ns.value)) {
    return fail(`namespace "${ns.value}" is invalid: use lowercase letters, digits and "-", at most 63 characters`);
  }
  const svc = optString(body, 'service');
  if (!svc.ok) return svc;
  const given: Partial<Record<string, string>> = {};
  for (const f of SEGMENT_FIELDS) {
    const v = optString(body, f);
    if (!v.ok) return v;
    given[f] = v.value;
  }
  const run = segmentRun(given);
  if (!run.ok) return run;
  let segments: ServiceSegments;
  if (svc.value) {
    const parsed = parseServiceName(svc.value);
    if (!parsed.ok) return parsed;
    segments = parsed.value;
    if (run.value.kind !== 'none') {
      const conflicting = SEGMENT_FIELDS.filter((f) => given[f] && given[f] !== parsed.value[f]);
      if (conflicting.length > 0 || run.value.kind === 'prefix') {
        const which = conflicting.length > 0 ? conflicting : SEGMENT_FIELDS.filter((f) => !given[f]);
        return fail(
          `service "${svc.value}" does not agree with the segment fields (${which.join(', ')}); send either service alone, all five segments, or both consistently`,
        );
      }
    }
  } else if (run.value.kind === 'exact') {
    const parsed = parseServiceName(run.value.service);
    if (!parsed.ok) return parsed;
    segments = parsed.value;
  } else {
    return fail(
      'service is required: send service (e.g. "company.trade.order.order-center.api") or all five segments organization, businessDomain, capabilityDomain, application, role',
    );
  }
  const id = optString(body, 'instanceId');
  if (!id.ok) return id;
  if (!id.value) return fail('instanceId is required');
  if (!INSTANCE_ID.test(id.value)) {
    return fail(`instanceId "${id.value}" is invalid: letters, digits and . _ : @ -, at most 253 characters, no "/"`);
  }
  return { ok: true, value: { namespace: ns.value, service: formatServiceName(segments), instanceId: id.value, ...segments } };
}

/** leaseTtlSeconds: absent or 0 → the default; otherwise a positive integer. */
export function parseLeaseTtl(v: unknown): Parsed<number> {
  if (v === undefined || v === null || v === 0) return { ok: true, value: DEFAULT_LEASE_TTL_SECONDS };
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_LEASE_TTL_SECONDS) {
    return fail(`leaseTtlSeconds must be an integer between 1 and ${MAX_LEASE_TTL_SECONDS} (0 or absent means ${DEFAULT_LEASE_TTL_SECONDS})`);
  }
  return { ok: true, value: v };
}

function stringMap(v: unknown, field: string, checkKey: (k: string) => boolean, checkValue: (v: string) => boolean): Parsed<Record<string, string>> {
  if (v === undefined || v === null) return { ok: true, value: {} };
  if (!isObject(v)) return fail(`${field} must be an object of string values`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') return fail(`${field}.${k} must be a string`);
    if (!checkKey(k)) return fail(`${field} key "${k}" is invalid: letters, digits and . _ / -, alphanumeric at both ends`);
    if (!checkValue(val)) return fail(`${field}.${k} value "${val.slice(0, 80)}" is invalid`);
    out[k] = val;
  }
  return { ok: true, value: out };
}

function parseEndpoint(v: unknown, i: number): Parsed<Endpoint> {
  if (!isObject(v)) return fail(`endpoints[${i}] must be an object`);
  const protocol = v.protocol;
  if (typeof protocol !== 'string' || !PROTOCOL.test(protocol)) {
    return fail(`endpoints[${i}].protocol is required, e.g. "http", "grpc" or "tcp"`);
  }
  const name = v.name === undefined || v.name === null || v.name === '' ? protocol : v.name;
  if (typeof name !== 'string' || !ENDPOINT_NAME.test(name)) return fail(`endpoints[${i}].name must be letters, digits, "-", "_" or "." (got ${shown(name)})`);
  const host = v.host;
  if (typeof host !== 'string' || host.length === 0 || host.length > 253 || /[\s/]/.test(host)) {
    return fail(`endpoints[${i}].host is required (an IP address or DNS name)`);
  }
  const port = v.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    return fail(`endpoints[${i}].port must be an integer between 1 and 65535`);
  }
  const weight = v.weight === undefined || v.weight === null ? DEFAULT_ENDPOINT_WEIGHT : v.weight;
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > 10_000) {
    return fail(`endpoints[${i}].weight must be an integer between 0 and 10000 (absent means ${DEFAULT_ENDPOINT_WEIGHT})`);
  }
  const ep: Endpoint = { name, protocol, host, port, weight };
  if (v.path !== undefined && v.path !== null && v.path !== '') {
    if (typeof v.path !== 'string' || !v.path.startsWith('/') || v.path.length > 1024) {
      return fail(`endpoints[${i}].path must start with "/"`);
    }
    ep.path = v.path;
  }
  return { ok: true, value: ep };
}

/** Validates a register request and fills the seed's defaults (endpoint name, weight, TTL). */
export function parseRegistration(body: unknown): Parsed<InstanceRecord> {
  const identity = parseIdentity(body);
  if (!identity.ok) return identity;
  const b = body as Record<string, unknown>;
  const zone = optString(b, 'zone');
  if (!zone.ok) return zone;
  if (zone.value && !isValidLabelValue(zone.value)) return fail(`zone "${zone.value}" is invalid`);
  const labels = stringMap(b.labels, 'labels', isValidLabelKey, isValidLabelValue);
  if (!labels.ok) return labels;
  const metadata = stringMap(b.metadata, 'metadata', isValidLabelKey, (x) => x.length <= MAX_METADATA_VALUE);
  if (!metadata.ok) return metadata;
  const rawEndpoints = b.endpoints ?? [];
  if (!Array.isArray(rawEndpoints)) return fail('endpoints must be an array');
  if (rawEndpoints.length > MAX_ENDPOINTS) return fail(`at most ${MAX_ENDPOINTS} endpoints per instance`);
  const endpoints: Endpoint[] = [];
  for (const [i, raw] of rawEndpoints.entries()) {
    const ep = parseEndpoint(raw, i);
    if (!ep.ok) return ep;
    if (endpoints.some((e) => e.name === ep.value.name)) return fail(`endpoint name "${ep.value.name}" is used twice`);
    endpoints.push(ep.value);
  }
  const ttl = parseLeaseTtl(b.leaseTtlSeconds);
  if (!ttl.ok) return ttl;
  return {
    ok: true,
    value: {
      ...identity.value,
      zone: zone.value ?? '',
      labels: labels.value,
      metadata: metadata.value,
      endpoints,
      leaseTtlSeconds: ttl.value,
    },
  };
}

/** True when two records carry the same registration (a re-register that changes nothing). */
export function sameRecord(a: InstanceRecord, b: InstanceRecord): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

import type { Instance, InstanceRecord } from '../model/instance.ts';
import { isValidNamespace } from '../model/instance.ts';
import { parseServiceName, SEGMENT_FIELDS, segmentRun, serviceHasPrefix, type Parsed } from '../model/service-name.ts';
import { matches, parseLegacyLabel, parseSelector, SelectorError, type Requirement } from './selector.ts';

/** What a query or watch asks for; every present criterion must hold. */
export interface InstanceFilter {
  namespace: string;
  /** Exact services; an instance matches when it is one of them or under one of `prefixes`. */
  services: string[];
  prefixes: string[];
  zone?: string;
  /** Endpoint name or protocol. */
  endpoint?: string;
  requirements: Requirement[];
  limit?: number;
}

export interface WatchOptions {
  sinceRevision?: number;
  includeSnapshot: boolean;
}

function fail<T>(message: string): Parsed<T> {
  return { ok: false, message };
}

function positiveInt(name: string, raw: string): Parsed<number> {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) return fail(`${name} must be a positive integer, got "${raw}"`);
  return { ok: true, value: Number(raw) };
}

/** Parses the seed's query parameters (`/instances`, `/watch`, the internal watch). */
export function parseFilter(params: URLSearchParams): Parsed<InstanceFilter> {
  const namespace = params.get('namespace') ?? '';
  if (!namespace) return fail('namespace is required, e.g. ?namespace=prod');
  if (!isValidNamespace(namespace)) return fail(`namespace "${namespace}" is invalid: lowercase letters, digits and "-"`);
  const services: string[] = [];
  for (const s of params.getAll('service')) {
    const parsed = parseServiceName(s);
    if (!parsed.ok) return parsed;
    services.push(s);
  }
  const prefixes: string[] = [];
  for (const p of params.getAll('servicePrefix')) {
    const parts = p.split('.');
    if (p === '' || parts.length > 5 || parts.some((x) => !/^[A-Za-z0-9_-]+$/.test(x))) {
      return fail(`servicePrefix "${p}" is invalid: one to five dot-separated segments, e.g. company.trade.order`);
    }
    prefixes.push(p);
  }
  const given: Record<string, string | undefined> = {};
  for (const f of SEGMENT_FIELDS) given[f] = params.get(f) ?? undefined;
  const run = segmentRun(given);
  if (!run.ok) return run;
  if (run.value.kind === 'exact') services.push(run.value.service);
  if (run.value.kind === 'prefix') prefixes.push(run.value.prefix);

  const requirements: Requirement[] = [];
  try {
    for (const s of params.getAll('selector')) requirements.push(...parseSelector(s));
    for (const l of params.getAll('label')) requirements.push(parseLegacyLabel(l));
  } catch (err) {
    if (err instanceof SelectorError) return fail(err.message);
    throw err;
  }
  const filter: InstanceFilter = { namespace, services, prefixes, requirements };
  const zone = params.get('zone');
  if (zone) filter.zone = zone;
  const endpoint = params.get('endpoint');
  if (endpoint) filter.endpoint = endpoint;
  const limit = params.get('limit');
  if (limit !== null && limit !== '') {
    const n = positiveInt('limit', limit);
    if (!n.ok) return n;
    filter.limit = n.value;
  }
  return { ok: true, value: filter };
}

export function parseWatchOptions(params: URLSearchParams): Parsed<WatchOptions> {
  const include = params.get('includeSnapshot');
  if (include !== null && include !== 'true' && include !== 'false') {
    return fail(`includeSnapshot must be true or false, got "${include}"`);
  }
  const opts: WatchOptions = { includeSnapshot: include !== 'false' };
  const since = params.get('sinceRevision');
  if (since !== null && since !== '') {
    if (!/^\d{1,15}$/.test(since)) return fail(`sinceRevision must be a non-negative integer, got "${since}"`);
    opts.sinceRevision = Number(since);
  }
  return { ok: true, value: opts };
}

export function serviceSelected(filter: InstanceFilter, service: string): boolean {
  if (filter.services.length === 0 && filter.prefixes.length === 0) return true;
  return filter.services.includes(service) || filter.prefixes.some((p) => serviceHasPrefix(service, p));
}

export function matchesFilter(filter: InstanceFilter, inst: InstanceRecord): boolean {
  if (inst.namespace !== filter.namespace) return false;
  if (!serviceSelected(filter, inst.service)) return false;
  if (filter.zone !== undefined && inst.zone !== filter.zone) return false;
  if (filter.endpoint !== undefined && !inst.endpoints.some((e) => e.name === filter.endpoint || e.protocol === filter.endpoint)) {
    return false;
  }
  return matches(inst.labels, filter.requirements);
}

/** Stable answer order: service, then instance id. */
export function compareInstances(a: Instance, b: Instance): number {
  if (a.service !== b.service) return a.service < b.service ? -1 : 1;
  return a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0;
}

import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { API_RESOURCES, type ApiResource, groupVersionPath } from '../api-resources.ts';

/**
 * fake-apiserver: a minimal in-process Kubernetes API server for the operator's tests (no real
 * API server can run on these machines). It implements only what the operator uses, with the
 * real wire shapes so the real @kubernetes/client-node talks to it:
 * - discovery (`/api/v1`, `/apis/<g>/<v>`), get, list (label selectors), create, replace with
 *   optimistic concurrency (409 on a stale resourceVersion), JSON merge patch, delete;
 * - watch with resourceVersion replay, and `410 Gone` (an ERROR event, as the real server sends
 *   it) when asked for a version older than the last `compact()`;
 * - server-side apply (`application/apply-patch+yaml`, `fieldManager`, `force`) with a simple but
 *   real ownership model: leaf fields (arrays are atomic) belong to managers, a differing value
 *   owned by another manager is a 409 conflict unless forced, fields a manager stops applying are
 *   removed when nobody else owns them; owners are published in `metadata.managedFields`;
 * - the status subresource (status changes only there, never through the main resource), the
 *   Deployment scale subresource, `generation` bumps on spec changes;
 * - deletion with finalizers (`deletionTimestamp` set, object kept until the last finalizer is
 *   removed), DeleteOptions preconditions (resourceVersion, uid → 409) and background garbage
 *   collection through ownerReferences;
 * - a `metadata.resourceVersion` in an apply patch is a precondition (409 when stale or absent);
 * - a Deployment "controller" that marks the requested replicas ready at once.
 * Strategic merge patch is refused for orrery.dev kinds (415), like the real server does for
 * custom resources, so a client that forgets the apply content type fails loudly.
 */

type Json = Record<string, unknown>;
interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  ownerReferences?: Array<{ uid: string; kind: string; name: string }>;
  managedFields?: unknown[];
  [k: string]: unknown;
}
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  [k: string]: unknown;
}

/** One managedFields entry: keyed by manager, operation and subresource, as Kubernetes does. */
interface Ownership {
  manager: string;
  operation: 'Apply' | 'Update';
  subresource?: string;
  fields: Set<string>;
  time: string;
}
interface Entry {
  obj: KubeObject;
  owners: Map<string, Ownership>;
}
interface WatchEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}
interface Watcher {
  resource: ApiResource;
  namespace?: string;
  selector: LabelSelector;
  res: ServerResponse;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string;
  body: string;
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Json,
  ) {
    super(message);
  }
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** Server-owned metadata: never owned by a manager, never taken from a request body. */
const SERVER_META = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields', 'name', 'namespace']);

/** Leaf fields: maps recurse (an empty map owns nothing), arrays and scalars are atomic. */
function leaves(value: unknown, prefix: string[], out: Map<string, unknown>): Map<string, unknown> {
  if (isObj(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, [...prefix, k], out);
  } else if (prefix.length > 0) {
    out.set(JSON.stringify(prefix), value);
  }
  return out;
}

/** Leaf fields of an object a manager may own: `status` only through the status subresource. */
function ownableLeaves(obj: Json, subresource: 'status' | undefined): Map<string, unknown> {
  const all = leaves(obj, [], new Map());
  const out = new Map<string, unknown>();
  for (const [k, v] of all) {
    const p = JSON.parse(k) as string[];
    if (p[0] === 'apiVersion' || p[0] === 'kind') continue;
    if (p[0] === 'metadata' && SERVER_META.has(p[1]!)) continue;
    if ((subresource === 'status') !== (p[0] === 'status')) continue;
    out.set(k, v);
  }
  return out;
}

function getAt(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}
function setAt(obj: Json, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (!isObj(cur[p])) cur[p] = {};
    cur = cur[p] as Json;
  }
  cur[path.at(-1)!] = clone(value);
}
function deleteAt(obj: Json, path: string[]): void {
  const parents: Json[] = [];
  let cur: unknown = obj;
  for (const p of path.slice(0, -1)) {
    if (!isObj(cur)) return;
    parents.push(cur);
    cur = cur[p];
  }
  if (!isObj(cur)) return;
  delete cur[path.at(-1)!];
  // Prune parents the removal left empty.
  for (let i = path.length - 2; i >= 0; i--) {
    const parent = parents[i]!;
    const child = parent[path[i]!];
    if (isObj(child) && Object.keys(child).length === 0) delete parent[path[i]!];
    else break;
  }
}
const related = (a: string, b: string): boolean => {
  if (a === b) return true;
  const pa = JSON.parse(a) as string[];
  const pb = JSON.parse(b) as string[];
  const n = Math.min(pa.length, pb.length);
  return pa.slice(0, n).every((x, i) => x === pb[i]);
};
const dotted = (k: string): string => '.' + (JSON.parse(k) as string[]).join('.');

function fieldsV1(fields: Set<string>): Json {
  const root: Json = {};
  for (const k of fields) {
    let cur = root;
    for (const p of JSON.parse(k) as string[]) {
      const key = `f:${p}`;
      if (!isObj(cur[key])) cur[key] = {};
      cur = cur[key] as Json;
    }
  }
  return root;
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Json = isObj(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type LabelSelector = Array<{ key: string; value?: string }>;
function parseSelector(s: string | undefined): LabelSelector {
  if (!s) return [];
  return s.split(',').filter(Boolean).map((part) => {
    const i = part.indexOf('=');
    return i < 0 ? { key: part.trim() } : { key: part.slice(0, i).replace(/=$/, '').trim(), value: part.slice(i + 1).replace(/^=/, '').trim() };
  });
}
const matches = (sel: LabelSelector, obj: KubeObject): boolean =>
  sel.every(({ key, value }) => {
    const v = obj.metadata.labels?.[key];
    return value === undefined ? v !== undefined : v === value;
  });

const specOf = (o: KubeObject): Json => {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
};

export interface FakeApiServerOptions {
  /** Mark Deployments' requested replicas ready at once (default true). */
  simulateDeployments?: boolean;
}

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly events = new Map<string, WatchEvent[]>();
  private readonly compactedRv = new Map<string, number>();
  private readonly watchers = new Set<Watcher>();
  private readonly faults: Array<{ method: string; pathIncludes: string; code: number; reason: string; times: number }> = [];
  private rv = 1;
  private partitioned = false;
  private server?: Server;
  url = '';

  constructor(private readonly opts: FakeApiServerOptions = {}) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Forget the event history: watches from an older resourceVersion now get 410 Gone. */
  compact(): void {
    for (const r of API_RESOURCES) {
      this.compactedRv.set(typeKey(r), this.rv);
      this.events.set(typeKey(r), []);
    }
  }

  /** Close every open watch (as an API server restart or a load balancer timeout would). */
  dropWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /**
   * Stop delivering events to open watches (a network partition): clients miss what happens
   * until `heal()` closes their watches and they reconnect.
   */
  partition(): void {
    this.partitioned = true;
  }

  heal(): void {
    this.partitioned = false;
    this.dropWatches();
  }

  get watchCount(): number {
    return this.watchers.size;
  }

  /** Answer the next `times` matching requests with an error status (e.g. 409 Conflict, 500). */
  failNext(method: string, pathIncludes: string, code: number, reason: string, times = 1): void {
    this.faults.push({ method, pathIncludes, code, reason, times });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** The stored object (a copy), for assertions. */
  get(apiVersion: string, kind: string, namespace: string, name: string): KubeObject | undefined {
    const r = API_RESOURCES.find((x) => x.apiVersion === apiVersion && x.kind === kind);
    const e = r && this.table(r).get(`${namespace}/${name}`);
    return e ? clone(e.obj) : undefined;
  }

  list(apiVersion: string, kind: string): KubeObject[] {
    const r = API_RESOURCES.find((x) => x.apiVersion === apiVersion && x.kind === kind);
    return r ? [...this.table(r).values()].map((e) => clone(e.obj)) : [];
  }

  /** Write as another client would (a user, kubectl, another controller): an Update by `manager`. */
  put(obj: KubeObject, manager = 'kubectl'): KubeObject {
    const r = API_RESOURCES.find((x) => x.apiVersion === obj.apiVersion && x.kind === obj.kind)!;
    const existing = this.table(r).get(`${obj.metadata.namespace}/${obj.metadata.name}`);
    return existing ? this.update(r, existing, clone(obj), manager, undefined) : this.create(r, clone(obj), manager);
  }

  private table(r: ApiResource): Map<string, Entry> {
    const k = typeKey(r);
    let t = this.entries.get(k);
    if (!t) this.entries.set(k, (t = new Map()));
    return t;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const query = Object.fromEntries(url.searchParams);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, query, contentType, body });
    try {
      const fault = this.faults.find((f) => f.method === method && url.pathname.includes(f.pathIncludes) && f.times > 0);
      if (fault) {
        fault.times--;
        throw new ApiError(fault.code, fault.reason, `injected ${fault.reason} by fake-apiserver`);
      }
      const out = this.route(method, url.pathname, query, contentType, body, res);
      if (out === 'streaming') return;
      send(res, out.code, out.body);
    } catch (err) {
      if (err instanceof ApiError) {
        send(res, err.code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: err.reason, code: err.code, message: err.message, details: err.details });
      } else {
        send(res, 500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'InternalError', code: 500, message: String(err) });
      }
    }
  }

  private route(
    method: string,
    path: string,
    query: Record<string, string>,
    contentType: string,
    body: string,
    res: ServerResponse,
  ): { code: number; body: unknown } | 'streaming' {
    const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    let apiVersion: string;
    let rest: string[];
    if (seg[0] === 'api' && seg.length >= 2) {
      apiVersion = seg[1]!;
      rest = seg.slice(2);
    } else if (seg[0] === 'apis' && seg.length >= 3) {
      apiVersion = `${seg[1]}/${seg[2]}`;
      rest = seg.slice(3);
    } else {
      throw new ApiError(404, 'NotFound', `the server could not find the requested resource ${path}`);
    }
    if (rest.length === 0 && method === 'GET') return { code: 200, body: discovery(apiVersion) };
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, sub] = rest;
    const r = API_RESOURCES.find((x) => x.apiVersion === apiVersion && x.plural === plural);
    if (!r) throw new ApiError(404, 'NotFound', `the server could not find the requested resource ${path}`);
    if (sub !== undefined && !(r.subresources as string[]).includes(sub)) throw new ApiError(404, 'NotFound', `no subresource ${sub}`);

    if (name === undefined) {
      if (method === 'GET' && query.watch === 'true') return this.watch(r, namespace, query, res);
      if (method === 'GET') return { code: 200, body: this.listBody(r, namespace, query) };
      if (method === 'POST' && namespace !== undefined) {
        const obj = this.decode(body, contentType) as KubeObject;
        obj.metadata = { ...(obj.metadata ?? {}), namespace };
        return { code: 201, body: this.create(r, obj, query.fieldManager ?? 'unknown') };
      }
      throw new ApiError(405, 'MethodNotAllowed', `${method} not allowed on a collection`);
    }
    if (namespace === undefined) throw new ApiError(404, 'NotFound', 'namespaced resource needs a namespace');
    const key = `${namespace}/${name}`;
    const entry = this.table(r).get(key);
    const notFound = () => new ApiError(404, 'NotFound', `${r.plural}${r.apiVersion.includes('/') ? '.' + r.apiVersion.split('/')[0] : ''} "${name}" not found`, { name, kind: r.plural });
    const manager = query.fieldManager ?? 'unknown';

    if (sub === 'scale') {
      if (!entry) throw notFound();
      if (method === 'GET') return { code: 200, body: scaleOf(entry.obj) };
      const input = this.decode(body, contentType);
      const replicas = method === 'PUT' ? getAt(input, ['spec', 'replicas']) : getAt(mergePatch(scaleOf(entry.obj), input), ['spec', 'replicas']);
      if (typeof replicas !== 'number' || replicas < 0) throw new ApiError(422, 'Invalid', 'spec.replicas must be a non-negative integer');
      const next = clone(entry.obj);
      setAt(next, ['spec', 'replicas'], replicas);
      return { code: 200, body: scaleOf(this.update(r, entry, next, manager, undefined)) };
    }

    const subresource = sub === 'status' ? 'status' : undefined;
    switch (method) {
      case 'GET':
        if (!entry) throw notFound();
        return { code: 200, body: entry.obj };
      case 'PUT': {
        if (!entry) throw notFound();
        const obj = this.decode(body, contentType) as KubeObject;
        const want = obj.metadata?.resourceVersion;
        if (want && want !== entry.obj.metadata.resourceVersion) throw conflict(r, name);
        return { code: 200, body: this.update(r, entry, obj, manager, subresource) };
      }
      case 'PATCH': {
        if (contentType === 'application/apply-patch+yaml') {
          if (!query.fieldManager) throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
          const patch = parseYaml(body) as KubeObject;
          if (patch.kind !== r.kind || patch.apiVersion !== r.apiVersion) throw new ApiError(400, 'BadRequest', `apply patch kind/apiVersion ${patch.apiVersion}/${patch.kind} does not match ${r.apiVersion}/${r.kind}`);
          // A resourceVersion in an apply patch is a precondition, as on the real server.
          const want = patch.metadata?.resourceVersion;
          if (want && want !== entry?.obj.metadata.resourceVersion) throw conflict(r, name);
          return { code: entry ? 200 : 201, body: this.apply(r, namespace, name, entry, patch, query.fieldManager, query.force === 'true', subresource) };
        }
        if (!entry) throw notFound();
        if (contentType === 'application/merge-patch+json' || (contentType === 'application/strategic-merge-patch+json' && !r.apiVersion.startsWith('orrery.dev/'))) {
          const next = mergePatch(entry.obj, JSON.parse(body)) as KubeObject;
          return { code: 200, body: this.update(r, entry, next, manager, subresource) };
        }
        throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType})`);
      }
      case 'DELETE': {
        if (!entry) throw notFound();
        const pre = (body ? (this.decode(body, contentType) as { preconditions?: { resourceVersion?: string; uid?: string } }) : {}).preconditions;
        if (pre?.resourceVersion && pre.resourceVersion !== entry.obj.metadata.resourceVersion) throw conflict(r, name);
        if (pre?.uid && pre.uid !== entry.obj.metadata.uid) throw conflict(r, name);
        return { code: 200, body: this.remove(r, entry) };
      }
      default:
        throw new ApiError(405, 'MethodNotAllowed', `${method} not allowed`);
    }
  }

  private decode(body: string, contentType: string): unknown {
    try {
      return contentType.includes('yaml') ? parseYaml(body) : JSON.parse(body);
    } catch {
      throw new ApiError(400, 'BadRequest', 'request body is not valid JSON/YAML');
    }
  }

  private listBody(r: ApiResource, namespace: string | undefined, query: Record<string, string>): unknown {
    const sel = parseSelector(query.labelSelector);
    const items = [...this.table(r).values()]
      .map((e) => e.obj)
      .filter((o) => (namespace === undefined || o.metadata.namespace === namespace) && matches(sel, o));
    return { apiVersion: r.apiVersion, kind: `${r.kind}List`, metadata: { resourceVersion: String(this.rv) }, items };
  }

  private watch(r: ApiResource, namespace: string | undefined, query: Record<string, string>, res: ServerResponse): 'streaming' {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const sel = parseSelector(query.labelSelector);
    const w: Watcher = { resource: r, namespace, selector: sel, res };
    const since = query.resourceVersion ? Number(query.resourceVersion) : undefined;
    if (since !== undefined && since > 0 && since < (this.compactedRv.get(typeKey(r)) ?? 0)) {
      // What the real API server sends for a compacted version: a 410 inside the stream.
      res.end(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${since} (${this.compactedRv.get(typeKey(r))})` } }) + '\n');
      return 'streaming';
    }
    const visible = (o: KubeObject) => (namespace === undefined || o.metadata.namespace === namespace) && matches(sel, o);
    if (since === undefined || since === 0) {
      for (const e of this.table(r).values()) if (visible(e.obj)) res.write(JSON.stringify({ type: 'ADDED', object: e.obj }) + '\n');
    } else {
      for (const ev of this.events.get(typeKey(r)) ?? []) if (ev.rv > since && visible(ev.object)) res.write(JSON.stringify({ type: ev.type, object: ev.object }) + '\n');
    }
    this.watchers.add(w);
    res.on('close', () => this.watchers.delete(w));
    return 'streaming';
  }

  private emit(r: ApiResource, type: WatchEvent['type'], obj: KubeObject): void {
    const ev: WatchEvent = { rv: Number(obj.metadata.resourceVersion), type, object: clone(obj) };
    const list = this.events.get(typeKey(r)) ?? [];
    list.push(ev);
    this.events.set(typeKey(r), list);
    if (this.partitioned) return;
    for (const w of this.watchers) {
      if (w.resource !== r) continue;
      if (w.namespace !== undefined && obj.metadata.namespace !== w.namespace) continue;
      if (!matches(w.selector, obj)) continue;
      w.res.write(JSON.stringify({ type, object: ev.object }) + '\n');
    }
  }

  private stamp(entry: Entry): void {
    entry.obj.metadata.resourceVersion = String(++this.rv);
    entry.obj.metadata.managedFields = [...entry.owners.values()].map((o) => ({
      manager: o.manager,
      operation: o.operation,
      apiVersion: entry.obj.apiVersion,
      time: o.time,
      fieldsType: 'FieldsV1',
      fieldsV1: fieldsV1(o.fields),
      ...(o.subresource ? { subresource: o.subresource } : {}),
    }));
  }

  private create(r: ApiResource, obj: KubeObject, manager: string): KubeObject {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (!obj.metadata?.name) throw new ApiError(422, 'Invalid', 'metadata.name: Required value');
    if (this.table(r).has(key)) throw new ApiError(409, 'AlreadyExists', `${r.plural} "${obj.metadata.name}" already exists`);
    const status = obj.status;
    const { uid: _u, resourceVersion: _rv, managedFields: _mf, deletionTimestamp: _d, ...meta } = obj.metadata;
    const next: KubeObject = { ...obj, apiVersion: r.apiVersion, kind: r.kind, metadata: { ...meta, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: randomUUID(), generation: 1, creationTimestamp: new Date().toISOString() } };
    if (r.subresources.includes('status')) delete next.status;
    else if (status !== undefined) next.status = status;
    const entry: Entry = { obj: next, owners: new Map() };
    const fields = new Set(ownableLeaves(next, undefined).keys());
    if (fields.size) entry.owners.set(ownerKey(manager, 'Update'), { manager, operation: 'Update', fields, time: new Date().toISOString() });
    this.simulate(r, entry.obj);
    this.table(r).set(key, entry);
    this.stamp(entry);
    this.emit(r, 'ADDED', entry.obj);
    return entry.obj;
  }

  /** A whole-object write (PUT, merge patch, scale) by `manager`: it takes the fields it changed. */
  private update(r: ApiResource, entry: Entry, input: KubeObject, manager: string, subresource: 'status' | undefined): KubeObject {
    const prev = entry.obj;
    const next = clone(prev);
    if (subresource === 'status') {
      next.status = clone(input.status);
    } else {
      for (const k of Object.keys(next)) if (k !== 'metadata' && k !== 'status' && k !== 'apiVersion' && k !== 'kind') delete next[k];
      for (const [k, v] of Object.entries(input)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind' && (k !== 'status' || !r.subresources.includes('status'))) next[k] = clone(v);
      const m = input.metadata ?? {};
      for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
        if (m[k] === undefined) delete next.metadata[k];
        else (next.metadata as Json)[k] = clone(m[k]);
      }
    }
    const before = ownableLeaves(prev, subresource);
    const after = ownableLeaves(next, subresource);
    const changed = new Set<string>();
    for (const [k, v] of after) if (!before.has(k) || !isDeepStrictEqual(before.get(k), v)) changed.add(k);
    for (const k of before.keys()) if (!after.has(k)) changed.add(k);
    if (changed.size === 0 && isDeepStrictEqual(prev, next)) return prev;
    const myKey = ownerKey(manager, 'Update', subresource);
    for (const [k, o] of entry.owners) {
      if (k === myKey) continue;
      for (const f of o.fields) if ([...changed].some((c) => related(c, f))) o.fields.delete(f);
      if (o.fields.size === 0) entry.owners.delete(k);
    }
    const mine = entry.owners.get(myKey) ?? { manager, operation: 'Update' as const, fields: new Set<string>(), time: '' };
    for (const c of changed) if (after.has(c)) mine.fields.add(c);
    for (const f of mine.fields) if (!after.has(f) && ![...after.keys()].some((a) => related(a, f))) mine.fields.delete(f);
    mine.time = new Date().toISOString();
    if (subresource) mine.subresource = subresource;
    if (mine.fields.size) entry.owners.set(myKey, mine);
    return this.commit(r, entry, next, prev);
  }

  private apply(
    r: ApiResource,
    namespace: string,
    name: string,
    existing: Entry | undefined,
    patch: KubeObject,
    manager: string,
    force: boolean,
    subresource: 'status' | undefined,
  ): KubeObject {
    if (!existing && subresource) throw new ApiError(404, 'NotFound', `${r.plural} "${name}" not found`);
    const entry: Entry = existing ?? {
      obj: { apiVersion: r.apiVersion, kind: r.kind, metadata: { name, namespace, uid: randomUUID(), generation: 1, creationTimestamp: new Date().toISOString() } },
      owners: new Map(),
    };
    const prev = entry.obj;
    const next = clone(prev);
    const applied = ownableLeaves(patch, subresource);
    const myKey = ownerKey(manager, 'Apply', subresource);
    const conflicts: Array<{ key: string; manager: string; field: string }> = [];
    for (const [ok, o] of entry.owners) {
      if (o.manager === manager) continue;
      for (const f of o.fields) {
        for (const [k, v] of applied) {
          if (!related(k, f)) continue;
          // Same value = shared ownership, not a conflict (Kubernetes semantics).
          if (k === f ? !isDeepStrictEqual(getAt(prev, JSON.parse(f) as string[]), v) : true) {
            conflicts.push({ key: ok, manager: o.manager, field: f });
            break;
          }
        }
      }
    }
    if (conflicts.length && !force) {
      const list = conflicts.map((c) => `conflict with "${c.manager}": ${dotted(c.field)}`);
      throw new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? 's' : ''}: ${list.join(', ')}`, {
        causes: conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with "${c.manager}"`, field: dotted(c.field) })),
      });
    }
    for (const c of conflicts) {
      const o = entry.owners.get(c.key);
      o?.fields.delete(c.field);
      if (o?.fields.size === 0) entry.owners.delete(c.key);
    }
    // Fields this manager applied before and dropped now go away, unless someone else owns them.
    const before = entry.owners.get(myKey)?.fields ?? new Set<string>();
    for (const f of before) {
      if (applied.has(f)) continue;
      const sharedElsewhere = [...entry.owners].some(([k, o]) => k !== myKey && o.fields.has(f));
      if (!sharedElsewhere) deleteAt(next, JSON.parse(f) as string[]);
    }
    for (const [k, v] of applied) setAt(next, JSON.parse(k) as string[], v);
    entry.owners.set(myKey, { manager, operation: 'Apply', fields: new Set(applied.keys()), time: new Date().toISOString(), ...(subresource ? { subresource } : {}) });
    if (!existing) {
      this.simulate(r, next);
      entry.obj = next;
      this.table(r).set(`${namespace}/${name}`, entry);
      this.stamp(entry);
      this.emit(r, 'ADDED', entry.obj);
      return entry.obj;
    }
    return this.commit(r, entry, next, prev);
  }

  private commit(r: ApiResource, entry: Entry, next: KubeObject, prev: KubeObject): KubeObject {
    if (!isDeepStrictEqual(specOf(prev), specOf(next))) next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    this.simulate(r, next);
    const { resourceVersion: _a, managedFields: _b, ...pm } = prev.metadata;
    const { resourceVersion: _c, managedFields: _d, ...nm } = next.metadata;
    if (isDeepStrictEqual(pm, nm) && isDeepStrictEqual({ ...prev, metadata: null }, { ...next, metadata: null })) return prev; // no-op: no new version
    entry.obj = next;
    this.stamp(entry);
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers?.length)) return this.purge(r, entry);
    this.emit(r, 'MODIFIED', entry.obj);
    return entry.obj;
  }

  private remove(r: ApiResource, entry: Entry): KubeObject {
    if (entry.obj.metadata.finalizers?.length) {
      if (entry.obj.metadata.deletionTimestamp) return entry.obj;
      entry.obj = clone(entry.obj);
      entry.obj.metadata.deletionTimestamp = new Date().toISOString();
      this.stamp(entry);
      this.emit(r, 'MODIFIED', entry.obj);
      return entry.obj;
    }
    return this.purge(r, entry);
  }

  private purge(r: ApiResource, entry: Entry): KubeObject {
    this.table(r).delete(`${entry.obj.metadata.namespace}/${entry.obj.metadata.name}`);
    entry.obj = clone(entry.obj);
    entry.obj.metadata.resourceVersion = String(++this.rv);
    this.emit(r, 'DELETED', entry.obj);
    // Background garbage collection: dependents go with their owner.
    const uid = entry.obj.metadata.uid;
    for (const cr of API_RESOURCES) {
      for (const dep of [...this.table(cr).values()]) {
        if (dep.obj.metadata.ownerReferences?.some((o) => o.uid === uid) && this.table(cr).get(`${dep.obj.metadata.namespace}/${dep.obj.metadata.name}`) === dep) this.remove(cr, dep);
      }
    }
    return entry.obj;
  }

  /** The bits of the Deployment controller the operator relies on: defaulting and readiness. */
  private simulate(r: ApiResource, obj: KubeObject): void {
    if (r.kind !== 'Deployment' || this.opts.simulateDeployments === false) return;
    const spec = (obj.spec ?? (obj.spec = {})) as Json;
    if (typeof spec.replicas !== 'number') spec.replicas = 1;
    const n = spec.replicas as number;
    obj.status = { observedGeneration: obj.metadata.generation ?? 1, replicas: n, readyReplicas: n, availableReplicas: n, updatedReplicas: n };
  }
}

const typeKey = (r: ApiResource): string => `${r.apiVersion}/${r.kind}`;
const ownerKey = (manager: string, operation: string, subresource?: string): string => `${manager}\u0000${operation}\u0000${subresource ?? ''}`;

function conflict(r: ApiResource, name: string): ApiError {
  const group = r.apiVersion.includes('/') ? `.${r.apiVersion.split('/')[0]}` : '';
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${r.plural}${group} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
}

function scaleOf(obj: KubeObject): Json {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, resourceVersion: obj.metadata.resourceVersion, uid: obj.metadata.uid },
    spec: { replicas: getAt(obj, ['spec', 'replicas']) ?? 1 },
    status: { replicas: getAt(obj, ['status', 'replicas']) ?? 0 },
  };
}

function discovery(apiVersion: string): unknown {
  const resources = API_RESOURCES.filter((r) => r.apiVersion === apiVersion).flatMap((r) => [
    { name: r.plural, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    ...r.subresources.map((s) => ({ name: `${r.plural}/${s}`, singularName: '', namespaced: r.namespaced, kind: s === 'scale' ? 'Scale' : r.kind, verbs: ['get', 'patch', 'update'] })),
  ]);
  if (resources.length === 0) throw new ApiError(404, 'NotFound', `no API group version ${apiVersion}`);
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersion, resources };
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeApiServer(opts?: FakeApiServerOptions): Promise<FakeApiServer> {
  return new FakeApiServer(opts).start();
}

export { groupVersionPath };

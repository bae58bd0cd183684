/**
 * What the registry's HTTP fuzz sends (fast-check arbitraries): generated requests to both
 * listeners, and byte-level mutations of valid requests. Requests are rendered to raw bytes, so
 * anything goes on the wire — NUL and control bytes in the request line, lying or doubled
 * Content-Length, bodies cut short. Not used by the server itself.
 */
import fc from 'fast-check';

/** The namespace and services the fuzz writes; instance ids come from a small pool so writes meet. */
export const FUZZ_NS = 'fz';
export const FUZZ_SERVICE = 'company.fuzz.order.oc.api';
export const FUZZ_RESERVED_SERVICE = `orrery.functions.${FUZZ_NS}.fn.fn-00001`;
const INSTANCE_IDS = ['i0', 'i1', 'i2', 'i3', 'w-10.0.0.1:8080', 'i@x'];

/** Bearer values the fuzz may present; the test fills in the real ones. */
export interface FuzzCredentials {
  writeToken: string;
  /** The registration credential of FUZZ_RESERVED_SERVICE in FUZZ_NS. */
  registration: string;
  replication: string;
  sd: string;
  admin: string;
}

const AUTH_KINDS = ['none', 'write', 'registration', 'replication', 'sd', 'admin', 'wrong', 'basic', 'empty', 'lower', 'spaces', 'two', 'huge', 'double', 'nul', 'other-registration'] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

export function authLines(kind: AuthKind, c: FuzzCredentials): string[] {
  switch (kind) {
    case 'none':
      return [];
    case 'write':
      return [`Authorization: Bearer ${c.writeToken}`];
    case 'registration':
      return [`Authorization: Bearer ${c.registration}`];
    case 'replication':
      return [`Authorization: Bearer ${c.replication}`];
    case 'sd':
      return [`Authorization: Bearer ${c.sd}`];
    case 'admin':
      return [`Authorization: Bearer ${c.admin}`];
    case 'wrong':
      return ['Authorization: Bearer not-a-token-anyone-configured-0123'];
    case 'basic':
      return ['Authorization: Basic ZnV6ejpmdXp6'];
    case 'empty':
      return ['Authorization: Bearer'];
    case 'lower':
      return [`Authorization: bearer\t${c.writeToken}`];
    case 'spaces':
      return [`Authorization: Bearer    ${c.registration}    `];
    case 'two':
      return [`Authorization: Bearer ${c.writeToken} ${c.admin}`];
    case 'huge':
      return [`Authorization: Bearer ${'f'.repeat(9000)}`];
    case 'double':
      return [`Authorization: Bearer ${c.admin}`, `Authorization: Bearer ${c.writeToken}`];
    case 'nul':
      return [`Authorization: Bearer ${c.writeToken}\u0000`];
    case 'other-registration':
      return [`Authorization: Bearer ${'0123456789abcdef'.repeat(4)}`];
  }
}

// ---- query strings --------------------------------------------------------------------------

const SELECTORS = [
  'color=gray,version in (v2),!deprecated', 'color=gray', 'color==gray', 'color!=gray', 'version in (v2,v3)', 'env notin (test,dev)', '!deprecated', 'deprecated',
  'version in v2', 'color=', 'color=gray,,version=v2', ',', '', ' ', '(', ')', '((a))', 'a in ((b))', 'a in ()', 'a notin ( , )', '!a=b', '!', '=', '!=x', 'a=b=c',
  'a in (b', 'a in b)', 'in (a)', 'a  in  (b)', 'a in(b)', 'orrery.dev/function=fn', 'a/b/c=d', '-a=b', 'a-=b', 'ä=ö', '😀', 'a=😀', 'k=v\u0000', 'a\tin (b)',
  `${'k'.repeat(300)}=v`, `k=${'v'.repeat(70)}`, `k in (${Array.from({ length: 200 }, (_, i) => `v${i}`).join(',')})`, Array.from({ length: 300 }, (_, i) => `k${i}`).join(','),
];
const VALUES: Record<string, readonly string[]> = {
  namespace: [FUZZ_NS, FUZZ_NS, FUZZ_NS, 'prod', '', 'FZ', '-fz', 'fz-', 'a'.repeat(63), 'a'.repeat(64), 'fz\u0000', 'fz\n', 'fé', 'fz ', 'f.z', 'f/z'],
  service: [FUZZ_SERVICE, FUZZ_RESERVED_SERVICE, 'company.fuzz.order.oc', 'a.b.c.d.e.f', 'a..c.d.e', '.a.b.c.d', 'A.B.C.D.E', `${'a'.repeat(64)}.b.c.d.e`, 'ORRERY.FUNCTIONS.fz.fn.fn-00001', 'a.b.c.d.é'],
  servicePrefix: ['company.fuzz', 'company', 'orrery.functions', '', '.', 'company.', '.company', 'a.b.c.d.e.f', 'a b', 'a*', 'company.fuzz.order.oc.api'],
  organization: ['company', 'orrery', '', '-x', 'a'.repeat(64)],
  businessDomain: ['fuzz', 'functions', '', 'x_'],
  capabilityDomain: ['order', 'fz', ''],
  application: ['oc', 'fn', ''],
  role: ['api', 'fn-00001', ''],
  zone: ['az1', '', 'AZ-1', 'a z', '😀'],
  endpoint: ['http', 'metrics', 'grpc', '', 'HTTP', 'a'.repeat(300)],
  selector: SELECTORS,
  label: ['color=gray', 'color', '=gray', 'color=', 'a==b', 'color=gray=x', 'k=v,k2=v2', 'ä=b'],
  limit: ['1', '2', '0', '-1', '1.5', '1e3', '999999999999999', '9999999999999999', 'NaN', 'x', ''],
  sinceRevision: ['0', '1', '2', '5', '999999999999999', '9999999999999999', '-1', '1e3', ' 1', '0x10', ''],
  includeSnapshot: ['true', 'false', 'TRUE', '1', '', 'yes'],
  scope: ['local', 'merged', 'global', '', 'LOCAL'],
  includeSelf: ['true', 'false', 'yes', ''],
  x: ['1', ''],
  '': ['', 'x'],
};
const PARAM_NAMES = Object.keys(VALUES);

/** A value made odd on the wire: raw control bytes, broken escapes, overlong UTF-8, huge. */
const RAW_VALUE = fc.constantFrom(
  '%00', '%0D%0A', '%0A', '%7F', '%ZZ', '%', '%2', '%C3', '%C3%28', '%ED%A0%80', '%F4%90%80%80', '%C0%AF', '%E2%80%AE', '%FF%FE', '%25', '%26', '%3D', '+', '%2B', '%20in%20(v2)',
  'a\u0000b', 'a\u0001b', 'a\tb', 'é', '😀', '\u0085', '"', "'", '<', '\\', '{}', '#frag',
);
const queryValue = (name: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...VALUES[name]!).map((v) => encodeURIComponent(v)) },
    { weight: 2, arbitrary: RAW_VALUE },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((v) => encodeURIComponent(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map((v) => encodeURIComponent(v)) },
    { weight: 1, arbitrary: fc.constantFrom(100, 4000, 15_000, 20_000).map((n) => 'x'.repeat(n)) },
  );
const queryPair = fc.constantFrom(...PARAM_NAMES).chain((name) => queryValue(name).map((v) => `${name}=${v}`));
/** Query strings: a few parameters, sometimes one repeated many times, sometimes without `=`. */
export const queryString = fc
  .tuple(
    fc.array(queryPair, { maxLength: 6 }),
    fc.option(fc.tuple(queryPair, fc.constantFrom(2, 20, 300)), { freq: 6 }),
    fc.constantFrom('', '', '', '&', '&&', '&=', '&namespace', '?'),
    fc.boolean(),
  )
  .map(([pairs, repeated, tail, ns]) => {
    const all = [...(ns ? [`namespace=${FUZZ_NS}`] : []), ...pairs, ...(repeated ? Array.from({ length: repeated[1] }, () => repeated[0]) : [])];
    return all.length || tail ? `?${all.join('&')}${tail}` : '';
  });

// ---- paths ----------------------------------------------------------------------------------

export const PUBLIC_ROUTES = [
  '/api/v1/registry/register', '/api/v1/registry/deregister', '/api/v1/registry/heartbeat', '/api/v1/registry/instances', '/api/v1/registry/watch',
  '/internal/v1/replication/watch', '/internal/v1/prometheus/sd', '/healthz', '/readyz', '/metrics',
];
const ODD_PUBLIC_PATHS = [
  '/', '', '*', '/api/v1/registry', '/api/v1/registry/', '/api/v1/registry/register/', '//api/v1/registry/instances', '/API/V1/REGISTRY/INSTANCES',
  '/api/v1/registry/instances%00', '/api/v1/registry/%69nstances', '/api/v1/registry/../registry/instances', '/api/v1/registry/./watch', '/internal/v1/prometheus/sd/..',
  'http://registry/api/v1/registry/instances', 'http://[', 'http://a:b@[::1', 'http://', 'http:', 'https://x:99999/healthz', '//', '/%', '/%ZZ', '/\u0000', '/a b',
  '/healthz?x', '/metrics#x', `/${'a'.repeat(17_000)}`, '/healthz/', '/admin/v1/status',
];
export const ADMIN_ROUTES = ['/admin/v1/status', '/admin/v1/replication/status', '/admin/v1/members/add-learner', '/admin/v1/members/promote', '/admin/v1/members/remove', '/admin/v1/leader/transfer'];
const ODD_ADMIN_PATHS = ['/', '/admin/v1/', '/admin/v1/members', '/admin/v1/status/', '/ADMIN/V1/STATUS', '/admin/v1/status%00', 'http://[', '*', '/healthz', '/admin/v1/members/add-learner/..'];

const METHODS = fc.constantFrom('GET', 'GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'G\u0000T', '');

// ---- bodies ---------------------------------------------------------------------------------

/** Placeholders replaced in the rendered JSON (JSON.stringify cannot write them). */
const DEEP_ARRAY = '"@@DEEP_ARRAY@@"';
const DEEP_OBJECT = '"@@DEEP_OBJECT@@"';

const WEIRD_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, -0, 1e308, 2 ** 53 + 1, 65536, '', ' ', 'x', 'ä', '😀', '\u0000', '\ud800', '\u202e', 'a'.repeat(300), 'a'.repeat(5000),
  [], {}, [1], ['a'], { a: 1 }, { __proto__: null, constructor: 'x' }, JSON.parse('{"__proto__":{"polluted":1}}') as unknown,
  DEEP_ARRAY.slice(1, -1), DEEP_OBJECT.slice(1, -1),
];

function baseRegister(service: string, instanceId: string): Record<string, unknown> {
  return {
    namespace: FUZZ_NS,
    service,
    instanceId,
    zone: 'az1',
    labels: { color: 'gray', version: 'v2', 'orrery.dev/function': 'fn' },
    metadata: { build_sha: 'abc123', owner: 'fuzz' },
    endpoints: [
      { name: 'http', protocol: 'http', host: '10.0.0.1', port: 8080, weight: 100 },
      { name: 'metrics', protocol: 'http', host: '10.0.0.1', port: 9090, path: '/metrics' },
    ],
    leaseTtlSeconds: 60,
  };
}

const IDENTITY_PATHS = ['namespace', 'service', 'organization', 'businessDomain', 'capabilityDomain', 'application', 'role', 'instanceId', 'extra'];
const ENDPOINT_PATHS = ['endpoints', 'endpoints.0', 'endpoints.0.protocol', 'endpoints.0.name', 'endpoints.0.host', 'endpoints.0.port', 'endpoints.0.path', 'endpoints.0.weight', 'endpoints.1.name', 'endpoints.1.protocol'];
/** The fields an edit may hit, per body shape (so edits land on fields the shape has). */
const FIELD_PATHS: Record<string, readonly string[]> = {
  register: [...IDENTITY_PATHS, 'zone', 'labels', 'labels.color', 'labels.ä', 'labels.😀', 'labels.a/b', 'labels.__proto__', 'metadata', 'metadata.owner', 'metadata.x', ...ENDPOINT_PATHS, ...ENDPOINT_PATHS, 'leaseTtlSeconds'],
  identity: [...IDENTITY_PATHS, 'leaseTtlSeconds'],
  admin: ['name', 'peerURL', 'id', 'targetId', 'extra'],
};
const PATHS_OF_SHAPE: Record<string, readonly string[]> = {
  register: FIELD_PATHS.register!, reserved: FIELD_PATHS.register!, segments: FIELD_PATHS.register!, array: FIELD_PATHS.register!,
  identity: FIELD_PATHS.identity!, 'identity-ttl': FIELD_PATHS.identity!, empty: FIELD_PATHS.identity!, scalar: FIELD_PATHS.identity!,
  'admin-learner': FIELD_PATHS.admin!, 'admin-id': FIELD_PATHS.admin!,
};

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: unknown = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur !== 'object' || cur === null) return;
    cur = (cur as Record<string, unknown>)[p];
  }
  if (typeof cur !== 'object' || cur === null) return;
  Object.defineProperty(cur, parts.at(-1)!, { value, enumerable: true, configurable: true, writable: true });
}

const bodyEdit = fc.record({
  path: fc.nat(),
  value: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...WEIRD_VALUES) },
    { weight: 2, arbitrary: fc.constantFrom(DEEP_ARRAY.slice(1, -1), DEEP_OBJECT.slice(1, -1)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  ),
  remove: fc.boolean(),
});

/** Text-level damage to a rendered JSON body. */
const TEXT_EDITS = ['none', 'none', 'none', 'truncate', 'bom', 'duplicate-key', 'trailing-garbage', 'pad-to-limit', 'pad-over-limit', 'nul', 'not-json', 'utf16'] as const;

function deep(kind: 'array' | 'object', depth: number): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export const jsonBody = fc
  .record({
    shape: fc.constantFrom('register', 'register', 'reserved', 'identity', 'identity-ttl', 'segments', 'admin-learner', 'admin-id', 'empty', 'array', 'scalar'),
    instanceId: fc.constantFrom(...INSTANCE_IDS),
    edits: fc.oneof({ weight: 3, arbitrary: fc.array(bodyEdit, { minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: fc.array(bodyEdit, { maxLength: 3 }) }),
    /** Nesting depth of a deep value: shallow, past V8's recursion limit (~5000), near and over 64 KiB. */
    depth: fc.constantFrom(50, 6_000, 12_000, 40_000),
    text: fc.constantFrom(...TEXT_EDITS),
    at: fc.nat(),
  })
  .map(({ shape, instanceId, edits, depth, text, at }) => {
    let obj: Record<string, unknown> | unknown[] | string;
    const reg = baseRegister(FUZZ_SERVICE, instanceId);
    switch (shape) {
      case 'register':
        obj = reg;
        break;
      case 'reserved':
        obj = { ...baseRegister(FUZZ_RESERVED_SERVICE, instanceId), labels: { 'orrery.dev/function': 'fn', 'orrery.dev/revision': 'fn-00001' } };
        break;
      case 'identity':
        obj = { namespace: FUZZ_NS, service: at % 3 === 0 ? FUZZ_RESERVED_SERVICE : FUZZ_SERVICE, instanceId };
        break;
      case 'identity-ttl':
        obj = { namespace: FUZZ_NS, service: FUZZ_SERVICE, instanceId, leaseTtlSeconds: [0, 30, 60, 61, 604800, 604801][at % 6] };
        break;
      case 'segments':
        obj = { namespace: FUZZ_NS, organization: 'company', businessDomain: 'fuzz', capabilityDomain: 'order', application: 'oc', role: 'api', instanceId, endpoints: reg.endpoints };
        break;
      case 'admin-learner':
        obj = { name: 'etcd-9', peerURL: ['http://127.0.0.1:9', 'ftp://x', 'http://', 'http://a b', 'http://127.0.0.1:9/x'][at % 5] };
        break;
      case 'admin-id':
        obj = { id: ['1234abcd', '0', '0x', 'ffffffffffffffff', '10000000000000000', ' 1 ', 'zz'][at % 7], targetId: '1234abcd' };
        break;
      case 'empty':
        obj = {};
        break;
      case 'array':
        obj = [reg];
        break;
      default:
        obj = 'scalar';
    }
    if (typeof obj === 'object' && !Array.isArray(obj)) {
      const paths = PATHS_OF_SHAPE[shape]!;
      for (const e of edits) {
        const path = paths[e.path % paths.length]!;
        if (e.remove) delete obj[path.split('.')[0]!];
        else setPath(obj, path, e.value);
      }
    }
    let s = JSON.stringify(obj) ?? 'null';
    s = s.split(DEEP_ARRAY).join(deep('array', depth)).split(DEEP_OBJECT).join(deep('object', depth));
    switch (text) {
      case 'truncate':
        return Buffer.from(s.slice(0, at % Math.max(1, s.length)));
      case 'bom':
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s)]);
      case 'duplicate-key':
        return Buffer.from(s.replace('{', '{"namespace":"other","instanceId":"dup",'));
      case 'trailing-garbage':
        return Buffer.from(`${s}}{"x":1}`);
      case 'pad-to-limit':
        return Buffer.from(s + ' '.repeat(Math.max(0, 64 * 1024 - Buffer.byteLength(s))));
      case 'pad-over-limit':
        return Buffer.from(s + ' '.repeat(Math.max(0, 64 * 1024 + 1 - Buffer.byteLength(s))));
      case 'nul':
        return Buffer.from(s.replace(':', ':\u0000'));
      case 'not-json':
        return Buffer.from(['nul', '{', '{"a":', '"\\ud800', '1e999999', '[', '\u0000', ' ', 'namespace=fz'][at % 9]!);
      case 'utf16':
        return Buffer.from(s, 'utf16le');
      default:
        return Buffer.from(s);
    }
  });

// ---- generated requests -----------------------------------------------------------------------

const FRAMINGS = ['length', 'length', 'length', 'length', 'chunked', 'none', 'short', 'long', 'negative', 'huge', 'double', 'length+chunked', 'expect'] as const;
export type Framing = (typeof FRAMINGS)[number];

const EXTRA_HEADERS = fc.constantFrom<readonly string[]>(
  [], [], [], ['Last-Event-ID: 1'], ['Last-Event-ID: 999999999999999999'], ['Last-Event-ID: x'], ['Connection: close'], ['Connection: keep-alive, Upgrade', 'Upgrade: websocket'],
  ['X-Forwarded-For: 10.9.9.9'], ['Host: a', 'Host: b'], ['Accept: text/event-stream'], [`X-Big: ${'h'.repeat(15_000)}`], ['Transfer-Encoding: gzip, chunked'], ['Bad Header: x'],
  ['X-Ctl: a\u0001b'], ['Content-Encoding: gzip'], ['X-Unicode: ä😀'],
);
const CONTENT_TYPES = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/json; charset=latin1');

export const generatedRequest = fc.record({
  listener: fc.constantFrom<'public' | 'admin'>('public', 'public', 'public', 'public', 'admin'),
  route: fc.oneof({ weight: 8, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.constant(-1) }),
  oddPath: fc.nat(),
  method: METHODS,
  methodMatchesRoute: fc.boolean(),
  query: queryString,
  auth: fc.constantFrom<AuthKind | 'matching'>(...AUTH_KINDS, 'matching', 'matching', 'matching', 'matching'),
  contentType: fc.option(CONTENT_TYPES, { freq: 5 }),
  framing: fc.constantFrom(...FRAMINGS),
  body: fc.option(jsonBody, { freq: 6 }),
  extra: EXTRA_HEADERS,
  /** The watch's source address and what the client does with the stream. */
  source: fc.constantFrom(1, 1, 2, 3, 4),
  watchMode: fc.constantFrom('abandon', 'read', 'hold', 'hold', 'stall'),
});
export type GeneratedRequest = typeof generatedRequest extends fc.Arbitrary<infer T> ? T : never;

/**
 * Writes and admin calls with the credential they need, framed correctly, whose JSON bodies are
 * valid ones damaged field by field (wrong types, unicode, deep nesting, sizes) or as text.
 */
export const bodyRequest = fc
  .record({
    route: fc.constantFrom('/api/v1/registry/register', '/api/v1/registry/register', '/api/v1/registry/register', '/api/v1/registry/heartbeat', '/api/v1/registry/deregister', '/admin/v1/members/add-learner', '/admin/v1/members/promote', '/admin/v1/members/remove', '/admin/v1/leader/transfer'),
    body: jsonBody,
    framing: fc.constantFrom<Framing>('length', 'length', 'length', 'chunked', 'expect'),
    contentType: fc.option(CONTENT_TYPES, { freq: 8 }),
    auth: fc.constantFrom<AuthKind | 'matching'>('matching', 'matching', 'matching', 'matching', 'none', 'wrong', 'other-registration'),
  })
  .map(({ route, body, framing, contentType, auth }): GeneratedRequest => {
    const admin = route.startsWith('/admin/');
    const routes: readonly string[] = admin ? ADMIN_ROUTES : PUBLIC_ROUTES;
    return {
      listener: admin ? 'admin' : 'public',
      route: routes.indexOf(route),
      oddPath: 0,
      method: 'POST',
      methodMatchesRoute: true,
      query: '',
      auth,
      contentType,
      framing,
      body,
      extra: [],
      source: 1,
      watchMode: 'read',
    };
  });

/**
 * Watch streams, mostly well-formed, from four source addresses, then dropped, read, held or
 * stalled: run beside the writes so open streams carry events, and enough of them to reach the
 * per-client and the total cap.
 */
export const watchRequest = fc
  .record({
    replication: fc.boolean(),
    query: fc.oneof(
      queryString,
      fc.constantFrom(
        `?namespace=${FUZZ_NS}`, `?namespace=${FUZZ_NS}&servicePrefix=company.fuzz`, `?namespace=${FUZZ_NS}&sinceRevision=1`, `?namespace=${FUZZ_NS}&sinceRevision=5&includeSnapshot=false`,
        `?namespace=${FUZZ_NS}&selector=color%3Dgray,!deprecated&endpoint=http`, `?namespace=${FUZZ_NS}&service=${FUZZ_RESERVED_SERVICE}`, `?namespace=${FUZZ_NS}&sinceRevision=999999999999999&includeSnapshot=false`,
      ),
    ),
    auth: fc.constantFrom<AuthKind | 'matching'>('matching', 'matching', 'matching', 'matching', 'none', 'wrong', 'replication', 'lower'),
    extra: fc.constantFrom<readonly string[]>([], [], ['Last-Event-ID: 1'], ['Last-Event-ID: 999999999999999'], ['Last-Event-ID: 1x'], ['Accept: text/event-stream']),
    source: fc.constantFrom(1, 2, 3, 4),
    watchMode: fc.constantFrom('abandon', 'read', 'hold', 'hold', 'stall'),
  })
  .map(({ replication, query, auth, extra, source, watchMode }): GeneratedRequest => ({
    listener: 'public',
    route: PUBLIC_ROUTES.indexOf(replication ? '/internal/v1/replication/watch' : '/api/v1/registry/watch'),
    oddPath: 0,
    method: 'GET',
    methodMatchesRoute: true,
    query,
    auth,
    contentType: null,
    framing: 'none',
    body: null,
    extra,
    source,
    watchMode,
  }));

/** Every path of a JSON value's tree (object keys and array indices), the root excluded. */
function treePaths(v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof v !== 'object' || v === null) return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.flatMap(([k, x]) => [[...prefix, k], ...treePaths(x, [...prefix, k])]);
}

function replaceAt(v: unknown, path: Array<string | number>, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(v)) as Record<string | number, unknown>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path.at(-1)!] = value;
  return copy;
}

/** Odd values for the sweep: each JSON type, unicode, control characters, sizes, and nesting past V8's recursion limit. */
const SWEEP_VALUES: readonly unknown[] = [
  null, true, 0, -1, 1.5, 1e308, 2 ** 53 + 1, '', 'ä', '😀', '\u0000', '\ud800', '\u202e', 'a'.repeat(300), [], {}, ['a'], { a: 'b' },
  JSON.parse('{"__proto__":{"polluted":1}}') as unknown, DEEP_ARRAY.slice(1, -1), DEEP_OBJECT.slice(1, -1),
];

/**
 * Valid bodies of the write routes and the admin calls, each field (every node of the body's
 * tree) replaced by each SWEEP_VALUE in turn, with the credential the route needs: a
 * deterministic sweep beside the random fuzz, because a value that matters only in one field
 * (say, nesting in an endpoint's name) is rare in random bodies.
 */
export function fieldSweep(): GeneratedRequest[] {
  const bodies: Array<[string, Record<string, unknown>]> = [
    ['/api/v1/registry/register', baseRegister(FUZZ_SERVICE, 'i4')],
    ['/api/v1/registry/register', { ...baseRegister(FUZZ_RESERVED_SERVICE, 'i4'), labels: { 'orrery.dev/function': 'fn' } }],
    ['/api/v1/registry/heartbeat', { namespace: FUZZ_NS, service: FUZZ_SERVICE, instanceId: 'i4', leaseTtlSeconds: 60 }],
    ['/api/v1/registry/deregister', { namespace: FUZZ_NS, organization: 'company', businessDomain: 'fuzz', capabilityDomain: 'order', application: 'oc', role: 'api', instanceId: 'i4' }],
    ['/admin/v1/members/add-learner', { name: 'etcd-9', peerURL: 'http://127.0.0.1:9' }],
    ['/admin/v1/members/promote', { id: '1234abcd' }],
    ['/admin/v1/members/remove', { id: '1234abcd' }],
    ['/admin/v1/leader/transfer', { targetId: '1234abcd' }],
  ];
  const out: GeneratedRequest[] = [];
  for (const [route, body] of bodies) {
    const admin = route.startsWith('/admin/');
    const routes: readonly string[] = admin ? ADMIN_ROUTES : PUBLIC_ROUTES;
    for (const path of treePaths(body)) {
      for (const value of SWEEP_VALUES) {
        const text = (JSON.stringify(replaceAt(body, path, value)) ?? 'null').split(DEEP_ARRAY).join(deep('array', 6_000)).split(DEEP_OBJECT).join(deep('object', 6_000));
        out.push({
          listener: admin ? 'admin' : 'public',
          route: routes.indexOf(route),
          oddPath: 0,
          method: 'POST',
          methodMatchesRoute: true,
          query: '',
          auth: 'matching',
          contentType: 'application/json',
          framing: 'length',
          body: Buffer.from(text),
          extra: [],
          source: 1,
          watchMode: 'read',
        });
      }
    }
  }
  return out;
}

export interface RenderedRequest {
  listener: 'public' | 'admin';
  method: string;
  target: string;
  bytes: Buffer;
  /** A GET of a watch route: the answer is a stream (or a refusal). */
  watch: boolean;
  /** The admin token was presented (answers may quote etcd by design). */
  adminAuthed: boolean;
  /** Content-Length promises more than is sent: the server waits until the client gives up. */
  incomplete: boolean;
}

const WRITE_ROUTES = new Set(['/api/v1/registry/register', '/api/v1/registry/deregister', '/api/v1/registry/heartbeat']);

function matchingAuth(listener: 'public' | 'admin', path: string, body: Buffer | null): AuthKind {
  if (listener === 'admin') return 'admin';
  if (path === '/internal/v1/replication/watch') return 'replication';
  if (path === '/internal/v1/prometheus/sd') return 'sd';
  if (WRITE_ROUTES.has(path)) return body?.includes('orrery.functions') ? 'registration' : 'write';
  return 'none';
}

/** Renders a generated request to the bytes sent on the wire. */
export function renderRequest(g: GeneratedRequest, c: FuzzCredentials): RenderedRequest {
  const routes = g.listener === 'admin' ? ADMIN_ROUTES : PUBLIC_ROUTES;
  const odd = g.listener === 'admin' ? ODD_ADMIN_PATHS : ODD_PUBLIC_PATHS;
  const path = g.route >= 0 ? routes[g.route % routes.length]! : odd[g.oddPath % odd.length]!;
  const routeMethod = g.listener === 'admin' ? (path.includes('/members/') || path.includes('/leader/') ? 'POST' : 'GET') : WRITE_ROUTES.has(path) ? 'POST' : 'GET';
  const method = g.methodMatchesRoute ? routeMethod : g.method;
  const body = g.body ?? (method === 'POST' && g.framing !== 'none' ? Buffer.from('{}') : null);
  const auth = g.auth === 'matching' ? matchingAuth(g.listener, path, body) : g.auth;
  const target = path + (g.route >= 0 || path.startsWith('/') ? g.query : '');
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: registry', ...authLines(auth, c), ...g.extra];
  if (g.contentType !== null) lines.push(`Content-Type: ${g.contentType}`);
  let payload = body ?? Buffer.alloc(0);
  let incomplete = false;
  switch (g.framing) {
    case 'length':
      if (body) lines.push(`Content-Length: ${body.length}`);
      break;
    case 'expect':
      lines.push(`Content-Length: ${payload.length}`, 'Expect: 100-continue');
      break;
    case 'chunked': {
      lines.push('Transfer-Encoding: chunked');
      const half = Math.floor(payload.length / 2);
      const chunk = (b: Buffer) => (b.length ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]) : Buffer.alloc(0));
      payload = Buffer.concat([chunk(payload.subarray(0, half)), chunk(payload.subarray(half)), Buffer.from('0\r\n\r\n')]);
      break;
    }
    case 'none':
      break;
    case 'short':
      lines.push(`Content-Length: ${Math.max(0, payload.length - 3)}`);
      break;
    case 'long':
      lines.push(`Content-Length: ${payload.length + 10}`);
      incomplete = true;
      break;
    case 'negative':
      lines.push('Content-Length: -1');
      break;
    case 'huge':
      lines.push('Content-Length: 99999999999999999999');
      break;
    case 'double':
      lines.push(`Content-Length: ${payload.length}`, `Content-Length: ${payload.length + 1}`);
      break;
    case 'length+chunked':
      lines.push(`Content-Length: ${payload.length}`, 'Transfer-Encoding: chunked');
      break;
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return {
    listener: g.listener,
    method,
    target,
    bytes: Buffer.concat([head, payload]),
    watch: method === 'GET' && (path === '/api/v1/registry/watch' || path === '/internal/v1/replication/watch'),
    adminAuthed: g.listener === 'admin' && (auth === 'admin' || auth === 'double'),
    incomplete,
  };
}

// ---- mutated valid requests -------------------------------------------------------------------

export interface BaseRequest {
  listener: 'public' | 'admin';
  text: string;
}

function req(method: string, target: string, headers: string[], body?: string): string {
  const b = body === undefined ? '' : body;
  const len = body === undefined ? [] : [`Content-Length: ${Buffer.byteLength(b)}`];
  return `${method} ${target} HTTP/1.1\r\nHost: registry\r\n${[...headers, ...len].map((h) => `${h}\r\n`).join('')}\r\n${b}`;
}

/** Valid requests of every route (each answers 2xx or a plain 4xx as sent), the seeds of the mutations. */
export function validRequests(c: FuzzCredentials): BaseRequest[] {
  const json = 'Content-Type: application/json';
  const w = `Authorization: Bearer ${c.writeToken}`;
  const reg = JSON.stringify(baseRegister(FUZZ_SERVICE, 'i1'));
  const reserved = JSON.stringify({ ...baseRegister(FUZZ_RESERVED_SERVICE, 'i2'), labels: { 'orrery.dev/function': 'fn', 'orrery.dev/revision': 'fn-00001' } });
  const id = JSON.stringify({ namespace: FUZZ_NS, service: FUZZ_SERVICE, instanceId: 'i1', leaseTtlSeconds: 60 });
  const chunkedBody = `${Buffer.byteLength(reg).toString(16)}\r\n${reg}\r\n0\r\n\r\n`;
  const sel = 'selector=color%3Dgray,version%20in%20(v2),!deprecated';
  const pub = (text: string): BaseRequest => ({ listener: 'public', text });
  const adm = (text: string): BaseRequest => ({ listener: 'admin', text });
  return [
    pub(req('POST', '/api/v1/registry/register', [w, json], reg)),
    pub(req('POST', '/api/v1/registry/register', [`Authorization: Bearer ${c.registration}`, json], reserved)),
    pub(req('POST', '/api/v1/registry/heartbeat', [w, json], id)),
    pub(req('POST', '/api/v1/registry/deregister', [w, json], JSON.stringify({ namespace: FUZZ_NS, service: FUZZ_SERVICE, instanceId: 'i3' }))),
    pub(`POST /api/v1/registry/register HTTP/1.1\r\nHost: registry\r\n${w}\r\nTransfer-Encoding: chunked\r\n\r\n${chunkedBody}`),
    pub(req('GET', `/api/v1/registry/instances?namespace=${FUZZ_NS}&servicePrefix=company.fuzz&${sel}&endpoint=http&limit=5`, [])),
    pub(req('GET', `/api/v1/registry/instances?namespace=${FUZZ_NS}&organization=company&businessDomain=fuzz&label=color=gray&label=version=v2`, [])),
    pub(req('GET', `/api/v1/registry/watch?namespace=${FUZZ_NS}&service=${FUZZ_SERVICE}&${sel}`, ['Accept: text/event-stream'])),
    pub(req('GET', `/api/v1/registry/watch?namespace=${FUZZ_NS}&servicePrefix=company.fuzz&sinceRevision=2&includeSnapshot=false`, [])),
    pub(req('GET', `/internal/v1/replication/watch?namespace=${FUZZ_NS}`, [`Authorization: Bearer ${c.replication}`, 'Last-Event-ID: 3'])),
    pub(req('GET', `/internal/v1/prometheus/sd?namespace=${FUZZ_NS}&endpoint=metrics&includeSelf=true&scope=local`, [`Authorization: Bearer ${c.sd}`])),
    pub(req('GET', '/internal/v1/prometheus/sd', [`Authorization: Bearer ${c.sd}`])),
    pub(`${req('GET', '/healthz', [])}${req('GET', '/readyz', [])}${req('GET', `/api/v1/registry/instances?namespace=${FUZZ_NS}`, [])}`),
    pub(req('GET', '/metrics', [])),
    adm(req('GET', '/admin/v1/status', [`Authorization: Bearer ${c.admin}`])),
    adm(req('GET', '/admin/v1/replication/status', [`Authorization: Bearer ${c.admin}`])),
    adm(req('POST', '/admin/v1/members/promote', [`Authorization: Bearer ${c.admin}`, json], '{"id":"1234abcd"}')),
    adm(req('POST', '/admin/v1/leader/transfer', [`Authorization: Bearer ${c.admin}`, json], '{"targetId":"1234abcd"}')),
  ];
}

const MUTATION_BYTES = [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x25, 0x28, 0x29, 0x2c, 0x2e, 0x2f, 0x30, 0x3a, 0x3d, 0x3f, 0x5b, 0x7b, 0x7d, 0x7f, 0x80, 0xc3, 0xff];
export const mutation = fc.record({
  base: fc.nat(),
  edits: fc.array(
    fc.record({
      kind: fc.constantFrom('replace', 'replace', 'insert', 'delete', 'repeat-line', 'drop-line', 'truncate', 'percent', 'swap-digit', 'repeat-request'),
      at: fc.nat(),
      byte: fc.constantFrom(...MUTATION_BYTES),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});
export type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** Applies the edits to the chosen valid request, byte by byte. */
export function mutate(bases: BaseRequest[], m: Mutation): { listener: 'public' | 'admin'; bytes: Buffer } {
  const base = bases[m.base % bases.length]!;
  let b = Buffer.from(base.text, 'utf8');
  for (const e of m.edits) {
    const at = e.at % Math.max(1, b.length);
    switch (e.kind) {
      case 'replace':
        b = Buffer.from(b);
        b[at] = e.byte;
        break;
      case 'insert':
        b = Buffer.concat([b.subarray(0, at), Buffer.from([e.byte]), b.subarray(at)]);
        break;
      case 'delete':
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
        break;
      case 'truncate':
        b = b.subarray(0, at);
        break;
      case 'percent':
        b = Buffer.concat([b.subarray(0, at), Buffer.from(`%${e.byte.toString(16).padStart(2, '0')}`), b.subarray(at)]);
        break;
      case 'swap-digit': {
        const digits = [...b.entries()].filter(([, x]) => x >= 0x30 && x <= 0x39).map(([i]) => i);
        if (digits.length) {
          b = Buffer.from(b);
          b[digits[at % digits.length]!] = 0x30 + (e.byte % 10);
        }
        break;
      }
      case 'repeat-request':
        b = Buffer.concat([b, b]);
        break;
      default: {
        const lines = b.toString('latin1').split('\r\n');
        const i = at % lines.length;
        if (e.kind === 'repeat-line') lines.splice(i, 0, lines[i]!);
        else lines.splice(i, 1);
        b = Buffer.from(lines.join('\r\n'), 'latin1');
      }
    }
  }
  return { listener: base.listener, bytes: b };
}

import type { z } from 'zod';

/**
 * The shape of a route table: each HTTP API users call with curl (statesvc, the registry) is
 * described once as plain data next to its zod schemas, so docs/http-api.md is rendered from it
 * and tests can check real answers against the schema of the route they came from.
 */
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** A path parameter, query parameter or header. */
export interface HttpParam {
  name: string;
  required?: boolean;
  /** Query parameters that may be given more than once. */
  repeatable?: boolean;
  description: string;
}

export interface HttpResponse {
  description: string;
  /** The JSON body; for an API with an envelope, the envelope's `data`. Absent for text bodies. */
  schema?: z.ZodType;
  /** Default `application/json`. `text/event-stream` bodies carry `schema` in each event's data line. */
  contentType?: string;
  /** This body is not wrapped in the API's envelope (e.g. Prometheus SD answers a bare array). */
  bare?: boolean;
}

export interface HttpRoute {
  method: HttpMethod;
  /** With `{name}` placeholders for path parameters. */
  path: string;
  purpose: string;
  /** Who may call: a bearer token, a signed URL, nothing. */
  auth: string;
  pathParams?: HttpParam[];
  query?: HttpParam[];
  headers?: HttpParam[];
  /** The JSON request body, when it has a fixed shape. */
  body?: z.ZodType;
  /** What the request body is when no schema fits (e.g. "any JSON value"). */
  bodyDescription?: string;
  responseHeaders?: HttpParam[];
  /** Success answers by HTTP status. */
  responses: Partial<Record<number, HttpResponse>>;
  /** Error codes this route answers (statuses come from the API's `errorCodes`). */
  errors: readonly string[];
}

export interface HttpApi {
  /** Short id used in anchors and test names (`statesvc`, `registry`). */
  id: string;
  title: string;
  /** One paragraph: where it listens and what it is for. */
  intro: string;
  /** The hand-written guide beside the reference, relative to docs/ (e.g. `state.md`). */
  guide: string;
  /** Every error answer has this body. */
  errorBody: z.ZodType;
  errorCodes: Record<string, { status: number; when: string }>;
  /** When every JSON answer is wrapped, how (responses then describe only `data`). */
  envelope?: { wrap(data: z.ZodType): z.ZodType; description: string };
  routes: HttpRoute[];
  /** Named schemas, rendered in this order; a route's schemas are referred to by these names. */
  schemas: Record<string, z.ZodType>;
}

/** The schema a whole response body must satisfy (the envelope applied when the API has one). */
export function responseBodySchema(api: HttpApi, response: HttpResponse): z.ZodType | undefined {
  if (!response.schema) return undefined;
  return api.envelope && !response.bare && (response.contentType ?? 'application/json') === 'application/json'
    ? api.envelope.wrap(response.schema)
    : response.schema;
}

/**
 * The route a request was sent to. `{name}` matches one or more characters, slashes included:
 * statesvc takes the whole rest of the path as the key (`PUT /v1/state/a/cas` writes key
 * `a/cas`). Of several matches the one with the longest literal part wins.
 */
export function findRoute(api: HttpApi, method: string, path: string): HttpRoute | undefined {
  const bare = path.split('?')[0]!;
  const candidates = api.routes.filter((r) => r.method === method && routePattern(r.path).test(bare));
  // The most specific template: the one with the longest literal part.
  return candidates.sort((a, b) => literalLength(b.path) - literalLength(a.path))[0];
}

function routePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((p) => (p.startsWith('{') ? '.+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

const literalLength = (template: string) => template.replace(/\{[^}]+\}/g, '').length;

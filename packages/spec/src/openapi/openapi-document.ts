import type { z } from 'zod';
import type { HttpApi, HttpParam, HttpResponse, HttpRoute } from '../wire/http-route.ts';
import { COMPONENT_REF_PREFIX, componentSchemas, type JsonSchema } from './component-schemas.ts';
import { operationId } from './operation-id.ts';
import { OPENAPI_VERSION, OpenApiDocumentSchema, openApiRoute } from './openapi-route.ts';

/** How one API is published as OpenAPI beyond what its route table says. */
export interface OpenApiOptions {
  /** `info.version`. */
  version: string;
  /** The one server entry (its variables let a client point it at any address). */
  server: { url: string; description: string; variables?: Record<string, { default: string; description: string }> };
  /** Bearer schemes by name. */
  securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  /**
   * Each `auth` text of the route table → its scheme (`optional`: the credential may be left
   * out), or null for no security requirement (public routes; signed URLs, whose signature is a
   * documented query parameter). An unlisted text is an error, so a new kind of auth cannot
   * slip through undocumented.
   */
  auth: Record<string, { scheme: string; optional?: boolean } | null>;
  /** Schemas a route uses that the route table names elsewhere (e.g. a shared error body). */
  extraSchemas?: Record<string, z.ZodType>;
  /** Headers on every enveloped answer, success or error (the registry's `X-Request-Id`). */
  envelopeHeaders?: HttpParam[];
  /** The server serves this document at OPENAPI_PATH; these are the codes it answers to another method. */
  servedWithErrors?: readonly string[];
}

/** OpenAPI ignores these as parameters: auth is `security`, the body type is `requestBody`. */
const NOT_PARAMETERS = new Set(['authorization', 'content-type', 'accept']);

const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENT_REF_PREFIX}${name}` });

/**
 * An HttpApi (route table + zod schemas, packages/spec/src/wire) → an OpenAPI 3.1 document.
 * Pure: same input, same document (key order included), so the checked-in files can be
 * compared byte for byte.
 */
export function renderOpenApi(api: HttpApi, options: OpenApiOptions): JsonSchema {
  const routes = options.servedWithErrors ? [...api.routes, openApiRoute(options.servedWithErrors)] : api.routes;
  const named: Record<string, z.ZodType> = { ...api.schemas, ...options.extraSchemas };
  if (options.servedWithErrors) named.OpenApiDocument = OpenApiDocumentSchema;
  const nameOf = new Map<z.ZodType, string>(Object.entries(named).map(([name, schema]) => [schema, name]));
  const mustName = (schema: z.ZodType, what: string): string => {
    const name = nameOf.get(schema);
    if (!name) throw new Error(`${api.id}: ${what} uses a schema with no name; add it to the API's schemas`);
    return name;
  };

  // Enveloped answers get a component each (`<data>Envelope`), built by the API's own wrapper.
  const envelopes = new Map<z.ZodType, string>();
  const answerSchema = (route: HttpRoute, response: HttpResponse): JsonSchema => {
    const dataName = mustName(response.schema!, `${route.method} ${route.path}`);
    if (!enveloped(api, response)) return ref(dataName);
    const schema = response.schema!;
    if (!envelopes.has(schema)) {
      const name = `${dataName}Envelope`;
      if (named[name]) throw new Error(`${api.id}: the envelope component ${name} would replace a schema of that name`);
      named[name] = api.envelope!.wrap(schema);
      envelopes.set(schema, name);
    }
    return ref(envelopes.get(schema)!);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  const context: Context = { api, options, mustName, answerSchema, errorBodyName: mustName(api.errorBody, 'the error body') };
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${api.id}: ${route.method} ${route.path} is listed twice`);
    item[method] = operation(context, route);
  }

  const document: JsonSchema = {
    openapi: OPENAPI_VERSION,
    info: {
      title: api.title,
      version: options.version,
      description: [api.intro, api.envelope?.description, `Guide: docs/${api.guide}; reference: docs/http-api.md.`].filter(Boolean).join('\n\n'),
    },
    servers: [options.server],
    paths,
    components: { schemas: componentSchemas(named), securitySchemes: options.securitySchemes },
    'x-orrery-error-codes': api.errorCodes,
  };
  return document;
}

/** The document as the checked-in and served text: two-space JSON and a final newline. */
export function renderOpenApiJson(api: HttpApi, options: OpenApiOptions): string {
  return `${JSON.stringify(renderOpenApi(api, options), null, 2)}\n`;
}

interface Context {
  api: HttpApi;
  options: OpenApiOptions;
  /** The component name of a schema a route uses (an error when it has none). */
  mustName: (schema: z.ZodType, what: string) => string;
  /** The schema of a JSON success answer: the named data, enveloped when the API wraps answers. */
  answerSchema: (route: HttpRoute, response: HttpResponse) => JsonSchema;
  errorBodyName: string;
}

function operation({ api, options, mustName, answerSchema, errorBodyName }: Context, route: HttpRoute): JsonSchema {
  const where = `${api.id}: ${route.method} ${route.path}`;
  if (!Object.hasOwn(options.auth, route.auth)) throw new Error(`${where}: no security mapping for auth "${route.auth}"; add it to the API's OpenAPI options`);
  const auth = options.auth[route.auth] ?? null;
  if (auth && !options.securitySchemes[auth.scheme]) throw new Error(`${where}: security scheme ${auth.scheme} is not defined`);
  const headers = route.headers ?? [];
  if (!auth && headers.some((h) => h.name.toLowerCase() === 'authorization')) {
    throw new Error(`${where}: sends Authorization but its auth "${route.auth}" maps to no security scheme`);
  }

  const placeholders = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathParams = route.pathParams ?? [];
  if (placeholders.join() !== pathParams.map((p) => p.name).join()) throw new Error(`${where}: path parameters ${pathParams.map((p) => p.name).join()} do not match the path`);
  const parameters = [
    ...pathParams.map((p) => parameter('path', p)),
    ...(route.query ?? []).map((p) => parameter('query', p)),
    ...headers.filter((h) => !NOT_PARAMETERS.has(h.name.toLowerCase())).map((p) => parameter('header', p)),
  ];

  const op: JsonSchema = {
    operationId: operationId(route.method, route.path),
    summary: firstSentence(route.purpose),
    description: route.auth === 'none' ? route.purpose : `${route.purpose}\n\nAuth: ${route.auth}.`,
    'x-orrery-auth': route.auth,
  };
  if (parameters.length > 0) op.parameters = parameters;
  const contentType = headers.find((h) => h.name.toLowerCase() === 'content-type');
  if (route.body) {
    op.requestBody = {
      required: true,
      ...(contentType ? { description: contentType.description } : {}),
      content: { 'application/json': { schema: ref(mustName(route.body, `${where} request body`)) } },
    };
  } else if (route.bodyDescription) {
    op.requestBody = { required: true, description: route.bodyDescription, content: { 'application/json': { schema: {} } } };
  }

  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response!.description,
      ...answerHeaders([...(route.responseHeaders ?? []), ...(enveloped(api, response!) ? (options.envelopeHeaders ?? []) : [])]),
      content: successContent(route, response!, answerSchema, mustName),
    };
  }
  const byStatus = new Map<number, string[]>();
  for (const code of route.errors) {
    const known = api.errorCodes[code];
    if (!known) throw new Error(`${where}: error code ${code} is not in the API's error codes`);
    byStatus.set(known.status, [...(byStatus.get(known.status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (responses[status]) throw new Error(`${where}: status ${status} is both a success and an error`);
    responses[status] = {
      description: codes.map((c) => `\`${c}\`: ${api.errorCodes[c]!.when}`).join('\n\n'),
      ...answerHeaders(options.envelopeHeaders ?? []),
      content: { 'application/json': { schema: ref(errorBodyName) } },
      'x-orrery-error-codes': codes,
    };
  }
  op.responses = responses;
  op.security = auth ? [{ [auth.scheme]: [] }, ...(auth.optional ? [{}] : [])] : [];
  return op;
}

/** Whether a success answer is wrapped in the API's envelope (JSON answers not marked bare). */
function enveloped(api: HttpApi, response: HttpResponse): boolean {
  return !!api.envelope && !response.bare && (response.contentType ?? 'application/json') === 'application/json';
}

function successContent(route: HttpRoute, response: HttpResponse, answerSchema: Context['answerSchema'], mustName: Context['mustName']): JsonSchema {
  const type = response.contentType ?? 'application/json';
  if (type === 'application/json') return { [type]: { schema: response.schema ? answerSchema(route, response) : {} } };
  if (type === 'text/event-stream') {
    // OpenAPI 3.1 cannot type the events of a stream: the data line's schema rides an extension.
    return { [type]: { schema: { type: 'string' }, ...(response.schema ? { 'x-orrery-event-data': ref(mustName(response.schema, `${route.method} ${route.path} events`)) } : {}) } };
  }
  return { [type]: { schema: { type: 'string' } } };
}

function parameter(where: 'path' | 'query' | 'header', p: HttpParam): JsonSchema {
  if (!/^[A-Za-z0-9._-]+$/.test(p.name)) throw new Error(`parameter "${p.name}" is not a name a client can send; list each parameter on its own`);
  return {
    name: p.name,
    in: where,
    required: where === 'path' || p.required === true,
    description: p.description,
    schema: p.repeatable ? { type: 'array', items: { type: 'string' } } : { type: 'string' },
    ...(p.repeatable ? { style: 'form', explode: true } : {}),
  };
}

function answerHeaders(headers: HttpParam[]): JsonSchema {
  if (headers.length === 0) return {};
  return { headers: Object.fromEntries(headers.map((h) => [h.name, { description: h.description, schema: { type: 'string' } }])) };
}

/** OpenAPI's `summary` is a short line: the purpose up to its first sentence end. */
function firstSentence(text: string): string {
  const m = /^(.+?)\.(\s|$)/.exec(text);
  return m ? m[1]! : text;
}

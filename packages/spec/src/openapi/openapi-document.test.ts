import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HttpApi, HttpRoute } from '../wire/http-route.ts';
import { renderOpenApi, renderOpenApiJson, type OpenApiOptions } from './openapi-document.ts';

const Item = z.object({ id: z.string() });
const Event = z.object({ type: z.literal('upsert'), item: Item });
const Err = z.object({ code: z.string(), message: z.string() });
const NewItem = z.object({ id: z.string(), note: z.string().optional() });

const route = (over: Partial<HttpRoute>): HttpRoute => ({
  method: 'GET',
  path: '/v1/items',
  purpose: 'List items. More words.',
  auth: 'none',
  responses: { 200: { description: 'The items.', schema: Item } },
  errors: [],
  ...over,
});

const toy = (routes: HttpRoute[], over: Partial<HttpApi> = {}): HttpApi => ({
  id: 'toy',
  title: 'Toy API',
  intro: 'A toy.',
  guide: 'toy.md',
  errorBody: Err,
  errorCodes: { bad_request: { status: 400, when: 'bad input' }, too_big: { status: 400, when: 'too big' }, gone: { status: 404, when: 'absent' } },
  routes,
  schemas: { Item, Event, Err, NewItem },
  ...over,
});

const options: OpenApiOptions = {
  version: 'v1',
  server: { url: 'http://{address}', description: 'A toy.', variables: { address: { default: '127.0.0.1:1', description: 'where' } } },
  securitySchemes: { writeToken: { type: 'http', scheme: 'bearer', description: 'A write token.' } },
  auth: { none: null, 'write token': { scheme: 'writeToken' }, 'write token if on': { scheme: 'writeToken', optional: true }, 'signed URL': null },
};

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown> } };
const render = (api: HttpApi, opts: OpenApiOptions = options) => renderOpenApi(api, opts) as unknown as Doc;

describe('renderOpenApi', () => {
  it('declares OpenAPI 3.1, the API title, the version and the server', () => {
    const doc = renderOpenApi(toy([route({})]), options);
    expect(doc).toMatchObject({ openapi: '3.1.1', info: { title: 'Toy API', version: 'v1' }, servers: [options.server] });
    expect((doc.info as { description: string }).description).toContain('A toy.');
  });

  it('one operation per route, merged per path, with a derived operationId and a one-sentence summary', () => {
    const doc = render(toy([route({}), route({ method: 'POST', purpose: 'Add one.', body: NewItem })]));
    expect(Object.keys(doc.paths['/v1/items']!)).toEqual(['get', 'post']);
    expect(doc.paths['/v1/items']!.get).toMatchObject({ operationId: 'getV1Items', summary: 'List items', description: 'List items. More words.' });
    expect(doc.paths['/v1/items']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewItem' } } } });
  });

  it('path, query and header parameters; repeatable ones are arrays; Authorization and Content-Type are not parameters', () => {
    const doc = render(
      toy([
        route({
          method: 'PUT',
          path: '/v1/items/{id}',
          auth: 'write token',
          pathParams: [{ name: 'id', description: 'The id.' }],
          query: [{ name: 'tag', repeatable: true, description: 'Tags.' }],
          headers: [
            { name: 'Authorization', required: true, description: 'Bearer.' },
            { name: 'Content-Type', description: '`application/json`, at most 1 KiB.' },
            { name: 'If-Match', description: 'A version.' },
          ],
          bodyDescription: 'Any JSON value.',
        }),
      ]),
    );
    const put = doc.paths['/v1/items/{id}']!.put!;
    expect(put.parameters).toEqual([
      { name: 'id', in: 'path', required: true, description: 'The id.', schema: { type: 'string' } },
      { name: 'tag', in: 'query', required: false, description: 'Tags.', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
      { name: 'If-Match', in: 'header', required: false, description: 'A version.', schema: { type: 'string' } },
    ]);
    expect(put.requestBody).toEqual({ required: true, description: 'Any JSON value.', content: { 'application/json': { schema: {} } } });
    expect(put.security).toEqual([{ writeToken: [] }]);
  });

  it('security: none and signed URLs have no requirement; an optional credential may be left out', () => {
    const doc = render(toy([route({}), route({ path: '/v1/admin', auth: 'signed URL' }), route({ method: 'POST', auth: 'write token if on' })]));
    expect(doc.paths['/v1/items']!.get!.security).toEqual([]);
    expect(doc.paths['/v1/admin']!.get!.security).toEqual([]);
    expect(doc.paths['/v1/items']!.post!.security).toEqual([{ writeToken: [] }, {}]);
    expect(doc.paths['/v1/items']!.post!['x-orrery-auth']).toBe('write token if on');
  });

  it('error codes grouped by their status, each with the error body and its codes', () => {
    const doc = render(toy([route({ errors: ['gone', 'bad_request', 'too_big'] })]));
    const responses = doc.paths['/v1/items']!.get!.responses as Record<string, Record<string, unknown>>;
    expect(Object.keys(responses)).toEqual(['200', '400', '404']);
    expect(responses['400']).toEqual({
      description: '`bad_request`: bad input\n\n`too_big`: too big',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Err' } } },
      'x-orrery-error-codes': ['bad_request', 'too_big'],
    });
  });

  it('an envelope wraps JSON answers (a component per data schema, with the envelope headers), not bare, event-stream or text answers', () => {
    const wrap = (data: z.ZodType) => z.object({ code: z.literal('ok'), data });
    const api = toy(
      [
        route({}),
        route({ path: '/v1/raw', responses: { 200: { description: 'Bare.', schema: Item, bare: true } } }),
        route({ path: '/v1/watch', responses: { 200: { description: 'Events.', schema: Event, contentType: 'text/event-stream' } } }),
        route({ path: '/metrics', responses: { 200: { description: 'Text.', contentType: 'text/plain' } } }),
      ],
      { envelope: { wrap, description: 'Every answer is wrapped.' } },
    );
    const doc = render(api, { ...options, envelopeHeaders: [{ name: 'X-Request-Id', description: 'Id.' }] });
    const ok = (path: string) => (doc.paths[path]!.get!.responses as Record<string, Record<string, unknown>>)['200']!;
    expect(ok('/v1/items')).toMatchObject({ headers: { 'X-Request-Id': { description: 'Id.' } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/ItemEnvelope' } } } });
    expect(doc.components.schemas.ItemEnvelope).toMatchObject({ properties: { code: { const: 'ok' }, data: { $ref: '#/components/schemas/Item' } } });
    expect(ok('/v1/raw')).toEqual({ description: 'Bare.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } });
    expect(ok('/v1/watch')).toEqual({
      description: 'Events.',
      content: { 'text/event-stream': { schema: { type: 'string' }, 'x-orrery-event-data': { $ref: '#/components/schemas/Event' } } },
    });
    expect(ok('/metrics')).toEqual({ description: 'Text.', content: { 'text/plain': { schema: { type: 'string' } } } });
  });

  it('a served document lists its own route and schema', () => {
    const doc = render(toy([route({})]), { ...options, servedWithErrors: ['bad_request'] });
    const get = doc.paths['/openapi.json']!.get!;
    expect(get).toMatchObject({ operationId: 'getOpenapiJson', security: [] });
    expect((get.responses as Record<string, unknown>)['400']).toMatchObject({ 'x-orrery-error-codes': ['bad_request'] });
    expect(doc.components.schemas.OpenApiDocument).toMatchObject({ properties: { openapi: { pattern: '^3\\.1\\.\\d+$' } } });
  });

  it('the same input renders the same text', () => {
    const api = toy([route({ errors: ['gone'] })]);
    expect(renderOpenApiJson(api, options)).toBe(renderOpenApiJson(api, options));
    expect(renderOpenApiJson(api, options).endsWith('}\n')).toBe(true);
  });

  it('refuses what a client could not use: unmapped auth, a dropped credential, unnamed schemas, bad names, unknown codes', () => {
    expect(() => renderOpenApi(toy([route({ auth: 'magic' })]), options)).toThrow(/no security mapping for auth "magic"/);
    expect(() => renderOpenApi(toy([route({ auth: 'signed URL', headers: [{ name: 'Authorization', description: 'x' }] })]), options)).toThrow(/maps to no security scheme/);
    expect(() => renderOpenApi(toy([route({ responses: { 200: { description: 'x', schema: z.object({}) } } })]), options)).toThrow(/no name/);
    expect(() => renderOpenApi(toy([route({ method: 'POST', body: z.object({ a: z.string() }) })]), options)).toThrow(/request body uses a schema with no name/);
    expect(() => renderOpenApi(toy([route({ query: [{ name: 'a … e', description: 'x' }] })]), options)).toThrow(/not a name a client can send/);
    expect(() => renderOpenApi(toy([route({ path: '/v1/items/{id}' })]), options)).toThrow(/path parameters/);
    expect(() => renderOpenApi(toy([route({ errors: ['teapot'] })]), options)).toThrow(/teapot is not in the API's error codes/);
    expect(() => renderOpenApi(toy([route({}), route({})]), options)).toThrow(/listed twice/);
    expect(() => renderOpenApi(toy([route({})], { errorBody: z.object({}) }), options)).toThrow(/error body/);
  });
});

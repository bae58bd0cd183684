import { z } from 'zod';
import type { HttpRoute } from '../wire/http-route.ts';

/** Where statesvc and the registry's public listener serve their OpenAPI document. */
export const OPENAPI_PATH = '/openapi.json';

/** The OpenAPI version the documents declare. */
export const OPENAPI_VERSION = '3.1.1';

/** What `GET /openapi.json` answers, as far as a client relies on it; the rest is OpenAPI's own schema. */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/).describe('`3.1.x`.'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()).describe('Every route of this API.'),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocumentSchema>;

/**
 * The route that serves the document, added to the document it serves (so the route table of a
 * server that answers it is complete). `errors`: what the server answers to another method.
 */
export function openApiRoute(errors: readonly string[]): HttpRoute {
  return {
    method: 'GET',
    path: OPENAPI_PATH,
    purpose: 'This OpenAPI 3.1 document, generated from the zod wire contracts (the same as the file in docs/openapi/); generate a client from it.',
    auth: 'none',
    responses: { 200: { description: 'The OpenAPI document (no envelope).', schema: OpenApiDocumentSchema, bare: true } },
    errors,
  };
}

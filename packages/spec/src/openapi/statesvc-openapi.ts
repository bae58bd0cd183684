import { STATESVC_HTTP_API } from '../wire/statesvc-http.ts';
import { renderOpenApiJson, type OpenApiOptions } from './openapi-document.ts';

/** statesvc's API as OpenAPI: docs/openapi/statesvc.json, and what statesvc answers at GET /openapi.json. */
export const STATESVC_OPENAPI_OPTIONS: OpenApiOptions = {
  version: 'v1',
  server: {
    url: 'http://{address}',
    description: 'A statesvc (functions get its URL in `ORRERY_STATE_URL`).',
    variables: { address: { default: '127.0.0.1:8080', description: 'host:port of statesvc (`--port`, default 8080).' } },
  },
  securitySchemes: {
    stateToken: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The state token from the file at `ORRERY_STATE_TOKEN_PATH` (JSON `{namespace, keyspace, token}`): HKDF-scoped to one namespace and keyspace, which go in `X-Orrery-State-Namespace` and `X-Orrery-State-Keyspace`.',
    },
  },
  auth: {
    'state token (scope headers)': { scheme: 'stateToken' },
    // The HMAC signature is the `signature` query parameter over method and URL: not a reusable key.
    'signed admin URL': null,
    none: null,
  },
  servedWithErrors: ['bad_request'],
};

let cached: string | undefined;

/** The document as the JSON text statesvc serves and docs/openapi/statesvc.json holds (rendered once per process). */
export function statesvcOpenApiJson(): string {
  cached ??= renderOpenApiJson(STATESVC_HTTP_API, STATESVC_OPENAPI_OPTIONS);
  return cached;
}

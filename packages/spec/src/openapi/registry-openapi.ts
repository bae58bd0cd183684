import { REGISTRY_ADMIN_HTTP_API } from '../wire/registry-admin-http.ts';
import { RegistryErrorEnvelopeSchema } from '../wire/registry-envelope.ts';
import { REGISTRY_HTTP_API } from '../wire/registry-http.ts';
import { renderOpenApiJson, type OpenApiOptions } from './openapi-document.ts';

const REQUEST_ID = { name: 'X-Request-Id', description: 'The answer\'s `requestId`; quote it when reporting a problem.' };

/** The registry's public API (`http_addr`) as OpenAPI: docs/openapi/registry.json, and what it answers at GET /openapi.json. */
export const REGISTRY_OPENAPI_OPTIONS: OpenApiOptions = {
  version: 'v1',
  server: {
    url: 'http://{address}',
    description: 'An orrery-registry public listener (`[server] http_addr`).',
    variables: { address: { default: '127.0.0.1:8080', description: 'host:port of `http_addr` (`--http-addr`; 8080 in the Kubernetes backend).' } },
  },
  securitySchemes: {
    registryCredential: {
      type: 'http',
      scheme: 'bearer',
      description:
        "For register, heartbeat and deregister. Under `orrery.functions.`: the revision's registration credential (always required). Elsewhere: a write token whose scope covers the namespace and service, required when write tokens are on; otherwise optional, but one that is sent must be valid.",
    },
    replicationToken: { type: 'http', scheme: 'bearer', description: 'The `replication_token` of the region being followed.' },
    prometheusSdToken: { type: 'http', scheme: 'bearer', description: 'The `prometheus_sd_token`.' },
  },
  auth: {
    'registration credential under `orrery.functions.`; write token elsewhere when write tokens are on': { scheme: 'registryCredential', optional: true },
    'replication token': { scheme: 'replicationToken' },
    'Prometheus SD token': { scheme: 'prometheusSdToken' },
    none: null,
  },
  envelopeHeaders: [REQUEST_ID],
  servedWithErrors: ['method_not_allowed'],
};

/**
 * The admin API (`admin_addr`, loopback only): docs/openapi/registry-admin.json. Not served:
 * the admin listener answers only its own routes, to loopback callers with the token.
 */
export const REGISTRY_ADMIN_OPENAPI_OPTIONS: OpenApiOptions = {
  version: 'v1',
  server: {
    url: 'http://{address}',
    description: 'An orrery-registry admin listener (`[server] admin_addr`, loopback only).',
    variables: { address: { default: '127.0.0.1:8081', description: 'host:port of `admin_addr` (`--admin-addr`; 8081 in the Kubernetes backend).' } },
  },
  securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The `admin_token`; callers must be on loopback.' } },
  auth: { 'admin token': { scheme: 'adminToken' } },
  extraSchemas: { RegistryErrorEnvelope: RegistryErrorEnvelopeSchema },
  envelopeHeaders: [REQUEST_ID],
};

let publicJson: string | undefined;

/** The public API's document as the JSON text the registry serves and docs/openapi/registry.json holds (rendered once per process). */
export function registryOpenApiJson(): string {
  publicJson ??= renderOpenApiJson(REGISTRY_HTTP_API, REGISTRY_OPENAPI_OPTIONS);
  return publicJson;
}

/** The admin API's document (docs/openapi/registry-admin.json). */
export function registryAdminOpenApiJson(): string {
  return renderOpenApiJson(REGISTRY_ADMIN_HTTP_API, REGISTRY_ADMIN_OPENAPI_OPTIONS);
}

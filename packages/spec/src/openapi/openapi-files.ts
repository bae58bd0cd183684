import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registryAdminOpenApiJson, registryOpenApiJson } from './registry-openapi.ts';
import { statesvcOpenApiJson } from './statesvc-openapi.ts';

/** docs/openapi/: the checked-in documents (Node only, so not exported from the package index). */
export const OPENAPI_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'docs', 'openapi');

/** File name → its text, as `npm run gen:openapi` writes it. */
export function renderOpenApiFiles(): Map<string, string> {
  return new Map([
    ['statesvc.json', statesvcOpenApiJson()],
    ['registry.json', registryOpenApiJson()],
    ['registry-admin.json', registryAdminOpenApiJson()],
  ]);
}

import { findRoute, responseBodySchema, type HttpApi } from './http-route.ts';

/**
 * For integration tests: checks one real answer against the route table it claims to follow —
 * a success must be a status the route lists, with a body its schema accepts; an error must be
 * the API's error body, with a code the route lists and that code's status. Throws a readable
 * Error on any mismatch; otherwise returns what was exercised (`GET /v1/state/{key} 200`,
 * `GET /v1/state/{key} not_found`), so a test can assert that every route and code was seen.
 */
export function checkRouteAnswer(api: HttpApi, method: string, path: string, status: number, body: unknown): string {
  const route = findRoute(api, method, path);
  const name = route ? `${route.method} ${route.path}` : `${method} (no route)`;
  const where = `${api.id}: ${method} ${path} answered ${status}`;
  if (status >= 400) {
    const parsed = api.errorBody.safeParse(body);
    if (!parsed.success) throw new Error(`${where} with a body that is not the error body: ${JSON.stringify(body)?.slice(0, 300)}: ${parsed.error.message}`);
    const code = (parsed.data as { code: string }).code;
    const expected = api.errorCodes[code]?.status;
    if (expected !== status) throw new Error(`${where} with code ${code}, whose status is ${expected}`);
    // Unknown paths and methods answer not_found / bad_request / method_not_allowed from no route's list.
    if (route && !route.errors.includes(code)) throw new Error(`${where} with code ${code}, which ${name} does not list (${route.errors.join(', ')})`);
    return `${name} ${code}`;
  }
  if (!route) throw new Error(`${where}, but the route table has no ${method} route for this path`);
  const response = route.responses[status];
  if (!response) throw new Error(`${where}, a status ${name} does not list`);
  const schema = responseBodySchema(api, response);
  if (schema) {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new Error(`${where} with a body its schema refuses: ${JSON.stringify(body)?.slice(0, 300)}: ${parsed.error.message}`);
  }
  return `${name} ${status}`;
}

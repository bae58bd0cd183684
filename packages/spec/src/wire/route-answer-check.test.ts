import { describe, expect, it } from 'vitest';
import { REGISTRY_HTTP_API } from './registry-http.ts';
import { checkRouteAnswer } from './route-answer-check.ts';
import { STATESVC_HTTP_API } from './statesvc-http.ts';

describe('checkRouteAnswer', () => {
  const state = (method: string, path: string, status: number, body: unknown) => checkRouteAnswer(STATESVC_HTTP_API, method, path, status, body);

  it('accepts answers that follow the route table and says what was exercised', () => {
    expect(state('GET', '/v1/state/a', 200, { value: { n: 1 } })).toBe('GET /v1/state/{key} 200');
    expect(state('PUT', '/v1/state/a', 412, { error: 'stale', code: 'version_conflict' })).toBe('PUT /v1/state/{key} version_conflict');
    expect(state('PATCH', '/v1/state/a', 400, { error: 'use GET', code: 'bad_request' })).toBe('PATCH (no route) bad_request');
    expect(state('GET', '/metrics', 200, undefined)).toBe('GET /metrics 200');
    const envelope = { code: 'ok', message: '', data: { status: 'ready', leaderId: 'a1', indexRevision: 4 }, requestId: 'r' };
    expect(checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/readyz', 200, envelope)).toBe('GET /readyz 200');
  });

  it('refuses a body the schema does not accept, an unlisted status or code, and a wrong status for a code', () => {
    expect(() => state('PUT', '/v1/state/a', 200, { version: '3' })).toThrow(/PUT \/v1\/state\/a answered 200 with a body its schema refuses/);
    expect(() => state('PUT', '/v1/state/a', 201, { version: 3 })).toThrow(/a status PUT \/v1\/state\/\{key\} does not list/);
    expect(() => state('GET', '/v1/state', 404, { error: 'x', code: 'not_found' })).toThrow(/code not_found, which GET \/v1\/state does not list/);
    expect(() => state('GET', '/v1/state/a', 500, { error: 'x', code: 'not_found' })).toThrow(/code not_found, whose status is 404/);
    expect(() => state('GET', '/v1/state/a', 404, { message: 'x' })).toThrow(/not the error body/);
    expect(() => checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/readyz', 200, { status: 'ready' })).toThrow(/schema refuses/);
  });
});

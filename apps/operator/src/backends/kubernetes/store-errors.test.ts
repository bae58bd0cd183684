import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { storeErrorFrom } from './store-errors.ts';

describe('Kubernetes API errors as StoreErrors', () => {
  const apiError = (code: number, body: object) => new ApiException(code, 'failed', JSON.stringify(body), {});
  it.each([
    [404, 'not_found'],
    [409, 'conflict'],
    [410, 'expired'],
    [422, 'invalid'],
    [500, 'unavailable'],
    [503, 'unavailable'],
  ] as const)('%i → %s', (code, want) => {
    expect(storeErrorFrom(apiError(code, { message: 'm' }), 'Function default/x').code).toBe(want);
  });

  it('keeps the API server validation causes as details', () => {
    const err = storeErrorFrom(apiError(422, { message: 'bad', details: { causes: [{ field: '.spec.template', message: 'Required value' }] } }), 'Function default/x');
    expect(err.details).toEqual([{ path: 'spec.template', reason: 'invalid', message: 'Required value' }]);
  });

  it('tells an admission denial (invalid) from an RBAC refusal (unavailable)', () => {
    expect(storeErrorFrom(apiError(403, { message: 'admission webhook "validate.orrery.dev" denied the request: bad' }), 'x').code).toBe('invalid');
    expect(storeErrorFrom(apiError(403, { message: 'functions.orrery.dev is forbidden' }), 'x').code).toBe('unavailable');
  });

  it('a vanished object under a resourceVersion precondition is a conflict', () => {
    expect(storeErrorFrom(apiError(404, { message: 'gone' }), 'x', { precondition: '7' }).code).toBe('conflict');
  });

  it('a network failure is unavailable (a port number in the message is no status)', () => {
    expect(storeErrorFrom(new Error('connect ECONNREFUSED 127.0.0.1:410'), 'x').code).toBe('unavailable');
  });

  it("reads the status of client-node's watch errors", () => {
    expect(storeErrorFrom(Object.assign(new Error('Gone'), { statusCode: 410 }), 'x').code).toBe('expired');
  });
});

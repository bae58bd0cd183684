import { describe, expect, it } from 'vitest';
import { operationId } from './operation-id.ts';

describe('operationId', () => {
  it.each([
    ['GET', '/v1/state/{key}', 'getV1StateByKey'],
    ['POST', '/v1/state/{key}/cas', 'postV1StateByKeyCas'],
    ['GET', '/v1/state', 'getV1State'],
    ['POST', '/admin/v1/members/add-learner', 'postAdminV1MembersAddLearner'],
    ['GET', '/openapi.json', 'getOpenapiJson'],
    ['GET', '/internal/v1/prometheus/sd', 'getInternalV1PrometheusSd'],
    ['DELETE', '/v1/fences/{fence_key}', 'deleteV1FencesByFenceKey'],
  ])('%s %s → %s', (method, path, id) => {
    expect(operationId(method, path)).toBe(id);
  });

  it('differs for the same path under different methods and for a path parameter versus a literal', () => {
    expect(operationId('GET', '/v1/state/{key}')).not.toBe(operationId('PUT', '/v1/state/{key}'));
    expect(operationId('GET', '/v1/state/{key}')).not.toBe(operationId('GET', '/v1/state/key'));
  });
});

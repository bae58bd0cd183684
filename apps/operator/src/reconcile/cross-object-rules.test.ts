import { describe, expect, it } from 'vitest';
import { EnvironmentSchema, FunctionSchema } from '@orrery/spec';
import { crossObjectProblem } from './cross-object-rules.ts';

const fn = (state: boolean) =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f', namespace: 'n' }, spec: { template: { environment: 'shared', source: { inline: 'x' } }, ...(state ? { state: {} } : {}) } });
const env = (allowed: 'single' | 'infinite') => EnvironmentSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'shared', namespace: 'n' }, spec: { allowedFunctionsPerContainer: allowed } });

describe('crossObjectProblem', () => {
  it('a stateful Function on an "infinite" Environment cannot roll out, with the webhook’s words', () => {
    expect(crossObjectProblem(fn(true), env('infinite'))).toEqual({ reason: 'state_environment_infinite', message: expect.stringContaining('Environment n/shared is "infinite"') });
  });
  it.each([
    [fn(true), env('single')],
    [fn(false), env('infinite')],
    [fn(true), undefined],
  ])('nothing to say otherwise', (f, e) => {
    expect(crossObjectProblem(f, e)).toBeUndefined();
  });
});

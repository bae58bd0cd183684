import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EnvironmentSchema, FunctionSchema, type OrreryFunction, keyspaceTakenMessage } from '@orrery/spec';
import { crossObjectProblem, keyspaceProblem } from './cross-object-rules.ts';

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

const stateful = (name: string, o: { keyspace?: string; created?: string; namespace?: string; state?: boolean } = {}): OrreryFunction =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: o.namespace ?? 'n', ...(o.created ? { creationTimestamp: o.created } : {}) },
    spec: { template: { source: { inline: 'x' } }, ...(o.state === false ? {} : { state: o.keyspace ? { keyspace: o.keyspace } : {} }) },
  });
const T1 = '2026-12-02T01:00:00Z';
const T2 = '2026-12-02T01:00:05Z';

describe('keyspaceProblem', () => {
  it.each([
    ['the later of two declarers waits, naming the owner', stateful('b', { keyspace: 'k', created: T2 }), [stateful('a', { keyspace: 'k', created: T1 })], 'a'],
    ['created later, whatever the names', stateful('a', { keyspace: 'k', created: T2 }), [stateful('z', { keyspace: 'k', created: T1 })], 'z'],
    ['the same second (Kubernetes): by name', stateful('b', { keyspace: 'k', created: T1 }), [stateful('a', { keyspace: 'k', created: T1 })], 'a'],
    ['the default keyspace is the owner’s name', stateful('b', { keyspace: 'a', created: T2 }), [stateful('a', { created: T1 })], 'a'],
    ['one not yet created comes after every created one', stateful('a', { keyspace: 'k' }), [stateful('z', { keyspace: 'k', created: T2 })], 'z'],
  ])('%s', (_what, f, others, owner) => {
    const declared = f.spec.state!.keyspace ?? f.metadata.name;
    expect(keyspaceProblem(f, [f, ...others])).toEqual({ reason: 'state_keyspace_taken', message: keyspaceTakenMessage('n', declared, owner) });
    // The validation error's words: the keyspace, its namespace and the owner.
    expect(keyspaceProblem(f, others)?.message).toContain(`belongs to Function n/${owner}`);
  });
  it.each([
    ['the owner', stateful('a', { keyspace: 'k', created: T1 }), [stateful('b', { keyspace: 'k', created: T2 })]],
    ['alone', stateful('a', { keyspace: 'k', created: T1 }), []],
    ['another keyspace', stateful('b', { keyspace: 'k2', created: T2 }), [stateful('a', { keyspace: 'k', created: T1 })]],
    ['another namespace', stateful('b', { keyspace: 'k', created: T2 }), [stateful('a', { keyspace: 'k', created: T1, namespace: 'other' })]],
    ['stateless', stateful('b', { created: T2, state: false }), [stateful('b2', { keyspace: 'b', created: T1 })]],
    ['a stateless Function of that name', stateful('b', { keyspace: 'a', created: T2 }), [stateful('a', { created: T1, state: false })]],
  ])('nothing to say for %s', (_what, f, others) => {
    expect(keyspaceProblem(f, [f, ...others])).toBeUndefined();
  });

  it('exactly one of the Functions declaring a keyspace may use it, the same one whatever the list order', () => {
    const claim = fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd'), second: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.uniqueArray(claim, { selector: (c) => c.name, minLength: 1 }), fc.integer(), (claims, seed) => {
        const fns = claims.map((c) => stateful(c.name, { keyspace: 'k', created: c.second === undefined ? undefined : `2026-12-02T01:00:0${c.second}Z` }));
        const shuffled = [...fns].sort((x, y) => ((x.metadata.name.charCodeAt(0) * seed) % 7) - ((y.metadata.name.charCodeAt(0) * seed) % 7));
        const free = fns.filter((f) => keyspaceProblem(f, shuffled) === undefined);
        expect(free).toHaveLength(1);
        for (const f of fns) if (f !== free[0]) expect(keyspaceProblem(f, fns)?.message).toContain(`Function n/${free[0]!.metadata.name}:`);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { type Environment, EnvironmentSchema } from '@orrery/spec';
import { type AdmissionRequest, validateAdmission } from './admission.ts';
import { type AdmissionSource, decideReadingThrough } from './read-through-lookup.ts';

const infinite: Environment = EnvironmentSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name: 'shared', namespace: 'team-a' },
  spec: { allowedFunctionsPerContainer: 'infinite' },
});

const statefulOn = (environment: string): AdmissionRequest => ({
  uid: 'u-1',
  kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' },
  operation: 'CREATE',
  namespace: 'team-a',
  name: 'counter',
  object: { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'counter' }, spec: { template: { environment, source: { inline: 'x' } }, state: {} } },
});

const emptyCache = { environment: () => undefined, keyspaceHolders: () => [] };

const statefulFunction = (name: string, keyspace: string, creationTimestamp?: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'team-a', ...(creationTimestamp ? { creationTimestamp } : {}) },
  spec: { template: { source: { inline: 'x' } }, state: { keyspace } },
});
/** Judged with an empty cache and a source whose reads fail: the answer and the reported failures. */
async function judgedWithFailingSource(request: AdmissionRequest, source: AdmissionSource) {
  const failures: string[] = [];
  const response = await decideReadingThrough(validateAdmission, request, emptyCache, source, (what, err) => failures.push(`${what}: ${(err as Error).message}`));
  return { response, failures };
}
const declaring = (name: string, keyspace: string, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  ...statefulOn('nodejs'),
  name,
  object: statefulFunction(name, keyspace),
  ...extra,
});

describe('admission reading Environments through a lagging cache', () => {
  it('reads an Environment the cache does not hold yet and judges the Function against it', async () => {
    const reads: string[] = [];
    const read = async (ns: string, name: string) => {
      reads.push(`${ns}/${name}`);
      return name === 'shared' ? infinite : undefined;
    };
    // The cache alone admits it: the rule has no Environment to look at.
    expect(validateAdmission(statefulOn('shared'), emptyCache).allowed).toBe(true);
    const response = await decideReadingThrough(validateAdmission, statefulOn('shared'), emptyCache, { environment: read });
    expect(response.allowed).toBe(false);
    expect(response.status!.details!.causes.map((c) => c.reason)).toEqual(['state_environment_infinite']);
    expect(reads).toEqual(['team-a/shared']);
  });

  it('does not read when the cache holds the Environment', async () => {
    let reads = 0;
    const cache = { environment: (ns: string, name: string) => (ns === 'team-a' && name === 'shared' ? infinite : undefined) };
    const response = await decideReadingThrough(validateAdmission, statefulOn('shared'), cache, {
      environment: async () => {
        reads++;
        return undefined;
      },
    });
    expect(response.allowed).toBe(false);
    expect(reads).toBe(0);
  });

  it('admits what the source does not have either, and decides as the cache did when the read fails', async () => {
    expect((await decideReadingThrough(validateAdmission, statefulOn('absent'), emptyCache, { environment: async () => undefined })).allowed).toBe(true);
    const failed = await judgedWithFailingSource(statefulOn('shared'), {
      environment: async () => {
        throw new Error('connection refused');
      },
    });
    expect(failed.response.allowed).toBe(true);
    expect(failed.failures).toEqual(['Environment team-a/shared: connection refused']);
  });

  it('never reads for a request that asks for no Environment (a stateless Function, another kind)', async () => {
    let reads = 0;
    const read = async () => {
      reads++;
      return infinite;
    };
    const stateless = statefulOn('shared');
    (stateless.object as { spec: Record<string, unknown> }).spec = { template: { environment: 'shared', source: { inline: 'x' } } };
    const functions = async () => {
      reads++;
      return [];
    };
    expect((await decideReadingThrough(validateAdmission, stateless, emptyCache, { environment: read, functions })).allowed).toBe(true);
    const environment = { ...statefulOn('shared'), kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Environment' }, object: infinite };
    expect((await decideReadingThrough(validateAdmission, environment, emptyCache, { environment: read, functions })).allowed).toBe(true);
    expect(reads).toBe(0);
  });

  it('reads the namespace’s Functions when the cache knows no other holder of the keyspace, and refuses a keyspace taken a moment ago', async () => {
    const stored = [statefulFunction('owner', 'cart', '2026-01-01T00:00:00Z')];
    const listed: string[] = [];
    const source = {
      environment: async () => undefined,
      functions: async (ns: string) => {
        listed.push(ns);
        return stored;
      },
    };
    const response = await decideReadingThrough(validateAdmission, declaring('second', 'cart'), emptyCache, source);
    expect(response.allowed).toBe(false);
    expect(response.status!.details!.causes.map((c) => c.reason)).toEqual(['state_keyspace_taken']);
    expect(response.status!.message).toContain('belongs to Function team-a/owner');
    expect(listed).toEqual(['team-a']);
    // A free keyspace is read too (the cache knew nobody) and admitted.
    expect((await decideReadingThrough(validateAdmission, declaring('second', 'orders'), emptyCache, source)).allowed).toBe(true);
    // The cache already names the owner: refused without a read.
    listed.length = 0;
    const cacheWithOwner = { environment: () => undefined, keyspaceHolders: () => [{ name: 'owner', creationTimestamp: '2026-01-01T00:00:00Z' }] };
    expect((await decideReadingThrough(validateAdmission, declaring('second', 'cart'), cacheWithOwner, source)).allowed).toBe(false);
    expect(listed).toEqual([]);
    // An update that keeps its keyspace is no new declaration: nothing to read.
    const before = statefulFunction('owner', 'cart', '2026-01-01T00:00:00Z');
    await decideReadingThrough(validateAdmission, declaring('owner', 'cart', { operation: 'UPDATE', oldObject: before, object: { ...before, spec: { ...before.spec, state: { keyspace: 'cart', maxKeys: 9 } } } }), emptyCache, source);
    expect(listed).toEqual([]);
  });

  it('decides as the cache did when the Functions cannot be read', async () => {
    const failed = await judgedWithFailingSource(declaring('second', 'cart'), {
      functions: async () => {
        throw new Error('etcdserver: request timed out');
      },
    });
    expect(failed.response.allowed).toBe(true);
    expect(failed.failures).toEqual(['the Functions of namespace team-a: etcdserver: request timed out']);
  });
});

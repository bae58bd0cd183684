import { describe, expect, it } from 'vitest';
import { type Environment, EnvironmentSchema } from '@orrery/spec';
import { type AdmissionRequest, validateAdmission } from './admission.ts';
import { decideReadingThrough } from './read-through-lookup.ts';

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

describe('admission reading Environments through a lagging cache', () => {
  it('reads an Environment the cache does not hold yet and judges the Function against it', async () => {
    const reads: string[] = [];
    const read = async (ns: string, name: string) => {
      reads.push(`${ns}/${name}`);
      return name === 'shared' ? infinite : undefined;
    };
    // The cache alone admits it: the rule has no Environment to look at.
    expect(validateAdmission(statefulOn('shared'), emptyCache).allowed).toBe(true);
    const response = await decideReadingThrough(validateAdmission, statefulOn('shared'), emptyCache, read);
    expect(response.allowed).toBe(false);
    expect(response.status!.details!.causes.map((c) => c.reason)).toEqual(['state_environment_infinite']);
    expect(reads).toEqual(['team-a/shared']);
  });

  it('does not read when the cache holds the Environment', async () => {
    let reads = 0;
    const cache = { environment: (ns: string, name: string) => (ns === 'team-a' && name === 'shared' ? infinite : undefined) };
    const response = await decideReadingThrough(validateAdmission, statefulOn('shared'), cache, async () => {
      reads++;
      return undefined;
    });
    expect(response.allowed).toBe(false);
    expect(reads).toBe(0);
  });

  it('admits what the source does not have either, and decides as the cache did when the read fails', async () => {
    expect((await decideReadingThrough(validateAdmission, statefulOn('absent'), emptyCache, async () => undefined)).allowed).toBe(true);
    const failures: string[] = [];
    const failed = await decideReadingThrough(
      validateAdmission,
      statefulOn('shared'),
      emptyCache,
      async () => {
        throw new Error('connection refused');
      },
      (ns, name, err) => failures.push(`${ns}/${name}: ${(err as Error).message}`),
    );
    expect(failed.allowed).toBe(true);
    expect(failures).toEqual(['team-a/shared: connection refused']);
  });

  it('never reads for a request that asks for no Environment (a stateless Function, another kind)', async () => {
    let reads = 0;
    const read = async () => {
      reads++;
      return infinite;
    };
    const stateless = statefulOn('shared');
    (stateless.object as { spec: Record<string, unknown> }).spec = { template: { environment: 'shared', source: { inline: 'x' } } };
    expect((await decideReadingThrough(validateAdmission, stateless, emptyCache, read)).allowed).toBe(true);
    expect((await decideReadingThrough(validateAdmission, { ...statefulOn('shared'), kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Environment' }, object: infinite }, emptyCache, read)).allowed).toBe(true);
    expect(reads).toBe(0);
  });
});

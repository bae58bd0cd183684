import { describe, expect, it } from 'vitest';
import { parseObjectRef } from './object-ref-arg.ts';

describe('parseObjectRef', () => {
  it('takes namespace/name, or a bare name in the default namespace', () => {
    expect(parseObjectRef('prod/canary')).toEqual({ namespace: 'prod', name: 'canary' });
    expect(parseObjectRef('canary')).toEqual({ namespace: 'default', name: 'canary' });
    expect(parseObjectRef('canary', 'team-a')).toEqual({ namespace: 'team-a', name: 'canary' });
  });
  it('says which part is wrong', () => {
    expect(parseObjectRef('a/b/c')).toEqual({ error: '"a/b/c" is not [namespace/]name' });
    expect(parseObjectRef('Prod/x')).toMatchObject({ error: expect.stringContaining('namespace "Prod"') });
    expect(parseObjectRef('prod/')).toMatchObject({ error: expect.stringContaining('name ""') });
  });
});

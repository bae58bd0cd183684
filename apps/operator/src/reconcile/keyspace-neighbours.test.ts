import { describe, expect, it } from 'vitest';
import { keyspaceNeighbours } from './keyspace-neighbours.ts';

const f = (name: string, state?: { keyspace?: string }, namespace = 'n') => ({ kind: 'Function', metadata: { name, namespace }, spec: { template: {}, ...(state ? { state } : {}) } });

describe('keyspaceNeighbours', () => {
  const all = [f('a', { keyspace: 'k' }), f('b', { keyspace: 'k' }), f('c', { keyspace: 'other' }), f('k', {}), f('d', { keyspace: 'k' }, 'elsewhere'), f('e')];
  it.each([
    ['a declarer of the same keyspace (itself left out), also one whose default keyspace is its name', [f('a', { keyspace: 'k' })], ['n/b', 'n/k']],
    ['a deleted owner: the Functions waiting for its keyspace', [f('x', { keyspace: 'k' })], ['n/a', 'n/b', 'n/k']],
    ['the keyspace it left and the one it took', [f('c', { keyspace: 'k' }), f('c', { keyspace: 'other' })], ['n/a', 'n/b', 'n/k']],
    ['a stateless Function: none', [f('e')], []],
    ['another namespace: only its own', [f('z', { keyspace: 'k' }, 'elsewhere')], ['elsewhere/d']],
  ])('%s', (_what, changed, expected) => {
    expect(keyspaceNeighbours(changed, all).sort()).toEqual(expected);
  });
});

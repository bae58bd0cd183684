import { describe, expect, it } from 'vitest';
import { functionPath, functionStickyPath, registryClusterPath, revisionPath, revisionSectionId, statePath, stateSyncPath } from './console-links.ts';

describe('console links', () => {
  it('one path per object, sections as fragments', () => {
    expect(functionPath('default', 'cart')).toBe('/functions/default/cart');
    expect(functionStickyPath('default', 'cart')).toBe('/functions/default/cart#sticky');
    expect(revisionPath('default', 'cart', 'cart-00002')).toBe('/functions/default/cart#rev-cart-00002');
    expect(revisionSectionId('cart-00002')).toBe('rev-cart-00002');
    expect(statePath('team-a')).toBe('/state/team-a');
    expect(statePath('team-a', 'carts')).toBe('/state/team-a?keyspace=carts');
    expect(stateSyncPath('default', 'router')).toBe('/statesync/default/router');
    expect(registryClusterPath('default', 'registry')).toBe('/registry/default/registry');
  });
  it('escapes what a path segment or query value cannot hold', () => {
    expect(statePath('a b', 'x&y')).toBe('/state/a%20b?keyspace=x%26y');
  });
});

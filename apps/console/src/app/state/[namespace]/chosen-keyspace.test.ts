import { describe, expect, it } from 'vitest';
import { chosenKeyspace } from './chosen-keyspace.ts';

describe('chosenKeyspace', () => {
  it('takes ?keyspace= when the namespace has it, else the first', () => {
    expect(chosenKeyspace('carts', ['counter', 'carts'])).toEqual({ keyspace: 'carts' });
    expect(chosenKeyspace(null, ['counter', 'carts'])).toEqual({ keyspace: 'counter' });
    expect(chosenKeyspace(null, [])).toEqual({ keyspace: undefined });
  });
  it('reports a keyspace the namespace does not have', () => {
    expect(chosenKeyspace('gone', ['counter'])).toEqual({ keyspace: 'counter', missing: 'gone' });
  });
});

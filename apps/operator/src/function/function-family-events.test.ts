import { describe, expect, it } from 'vitest';
import { FunctionFamilyEvents } from './function-family-events.ts';

function queues() {
  const added = { functions: [] as string[], revisions: [] as string[], environments: [] as string[] };
  const q = (list: string[]) => ({ add: (k: string) => void list.push(k) });
  return { added, queues: { functions: q(added.functions), revisions: q(added.revisions), environments: q(added.environments) } };
}

const fn = (name: string, o: { keyspace?: string; environment?: string; namespace?: string } = {}) => ({
  kind: 'Function',
  metadata: { namespace: o.namespace ?? 'default', name },
  spec: { template: { environment: o.environment ?? 'node' }, ...(o.keyspace ? { state: { keyspace: o.keyspace } } : {}) },
});

describe('FunctionFamilyEvents', () => {
  it('a Function change enqueues it and the other declarers of the keyspace it holds or held', () => {
    const a1 = fn('a', { keyspace: 'carts' });
    const a2 = fn('a', { keyspace: 'orders' });
    const known = [a2, fn('b', { keyspace: 'carts' }), fn('c', { keyspace: 'orders' }), fn('d', { keyspace: 'other' })];
    const { added, queues: q } = queues();
    const events = new FunctionFamilyEvents(q, () => known);
    events.functionChanged(a1, false);
    expect(added.functions).toEqual(['default/a', 'default/b']);
    added.functions.length = 0;
    // Moved from carts to orders: b may take carts now, c must wait for a.
    events.functionChanged(a2, false);
    expect(added.functions.sort()).toEqual(['default/a', 'default/b', 'default/c']);
    added.functions.length = 0;
    events.functionChanged(a2, true);
    expect(added.functions.sort()).toEqual(['default/a', 'default/c']);
    added.functions.length = 0;
    // Forgotten once deleted: its old keyspace no longer counts.
    events.functionChanged(fn('a'), false);
    expect(added.functions).toEqual(['default/a']);
  });

  it('a Revision change enqueues it and its Function', () => {
    const { added, queues: q } = queues();
    new FunctionFamilyEvents(q, () => []).revisionChanged({ metadata: { namespace: 'prod', name: 'fn-00002' }, spec: { function: 'fn' } });
    expect(added).toEqual({ functions: ['prod/fn'], revisions: ['prod/fn-00002'], environments: [] });
  });

  it('an Environment change enqueues it and the Functions of its namespace that run on it', () => {
    const known = [fn('a', { environment: 'py' }), fn('b', { environment: 'node' }), fn('c', { environment: 'py', namespace: 'other' })];
    const { added, queues: q } = queues();
    new FunctionFamilyEvents(q, () => known).environmentChanged({ metadata: { namespace: 'default', name: 'py' } });
    expect(added).toEqual({ functions: ['default/a'], revisions: [], environments: ['default/py'] });
  });
});

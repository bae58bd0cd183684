import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyspaceCleanup } from './keyspace-cleanup.ts';

interface Opts {
  uid?: string;
  namespace?: string;
  state?: Record<string, unknown>;
  annotation?: string;
  deleting?: boolean;
}
const fn = (name: string, o: Opts = {}) => ({
  kind: 'Function',
  metadata: {
    name,
    namespace: o.namespace ?? 'shop',
    ...(o.uid ? { uid: o.uid } : {}),
    ...(o.annotation ? { annotations: { 'orrery.dev/keyspace-deletion-policy': o.annotation } } : {}),
    ...(o.deleting ? { deletionTimestamp: '2026-12-02T00:00:00Z' } : {}),
  },
  spec: { template: { source: { inline: 'x' } }, ...(o.state ? { state: o.state } : {}) },
});

const wiping = { keyspace: 'cart', onDelete: 'delete' };

describe('keyspaceCleanup', () => {
  it.each([
    ['no spec.state: nothing to delete', fn('a', { annotation: 'delete' }), [], { action: 'retain', why: 'no_state' }],
    ['default is retain', fn('a', { state: { keyspace: 'cart' } }), [], { action: 'retain', why: 'policy', namespace: 'shop', keyspace: 'cart' }],
    ['onDelete: delete', fn('a', { state: wiping }), [], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['the keyspace defaults to the name', fn('cart', { state: { onDelete: 'delete' } }), [], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['the deprecated annotation when the field is absent', fn('a', { state: { keyspace: 'cart' }, annotation: 'delete' }), [], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['the field wins over the annotation', fn('a', { state: { keyspace: 'cart', onDelete: 'retain' }, annotation: 'delete' }), [], { action: 'retain', why: 'policy', namespace: 'shop', keyspace: 'cart' }],
    ['itself in the list (Kubernetes: still there, being deleted)', fn('a', { uid: 'u1', state: wiping, deleting: true }), [fn('a', { uid: 'u1', state: wiping, deleting: true })], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['another Function declaring the keyspace holds it', fn('a', { state: wiping }), [fn('b', { state: { keyspace: 'cart' } })], { action: 'retain', why: 'held', namespace: 'shop', keyspace: 'cart', holder: 'b' }],
    ['one whose name is the keyspace holds it', fn('a', { state: wiping }), [fn('cart', { state: {} })], { action: 'retain', why: 'held', namespace: 'shop', keyspace: 'cart', holder: 'cart' }],
    ['re-created under the same name (another uid) holds it', fn('a', { uid: 'u1', state: wiping }), [fn('a', { uid: 'u2', state: { keyspace: 'cart' } })], { action: 'retain', why: 'held', namespace: 'shop', keyspace: 'cart', holder: 'a' }],
    ['re-created with another keyspace does not', fn('a', { uid: 'u1', state: wiping }), [fn('a', { uid: 'u2', state: { keyspace: 'other' } })], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['one being deleted with policy delete is going too', fn('a', { state: wiping }), [fn('b', { state: wiping, deleting: true })], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['one being deleted with policy retain still holds it', fn('a', { state: wiping }), [fn('b', { state: { keyspace: 'cart' }, deleting: true })], { action: 'retain', why: 'held', namespace: 'shop', keyspace: 'cart', holder: 'b' }],
    ['another namespace has keyspaces of its own', fn('a', { state: wiping }), [fn('b', { namespace: 'other', state: { keyspace: 'cart' } })], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
    ['a Function without state holds nothing', fn('a', { state: wiping }), [fn('cart')], { action: 'delete', namespace: 'shop', keyspace: 'cart' }],
  ] as const)('%s', (_what, gone, others, want) => {
    expect(keyspaceCleanup(gone, others)).toEqual(want);
  });

  it('never deletes while a live Function (not itself) declares the keyspace, whatever else is around', () => {
    const keyspaces = fc.constantFrom('cart', 'a', 'b', undefined);
    const arbFn = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'cart'),
      uid: fc.constantFrom('u1', 'u2', 'u3'),
      keyspace: keyspaces,
      stateful: fc.boolean(),
      onDelete: fc.constantFrom('retain', 'delete', undefined),
      deleting: fc.boolean(),
    });
    const build = (f: { name: string; uid: string; keyspace?: string; stateful: boolean; onDelete?: string; deleting: boolean }) =>
      fn(f.name, { uid: f.uid, deleting: f.deleting, state: f.stateful ? { ...(f.keyspace ? { keyspace: f.keyspace } : {}), ...(f.onDelete ? { onDelete: f.onDelete } : {}) } : undefined });
    fc.assert(
      fc.property(arbFn, fc.array(arbFn, { maxLength: 6 }), (g, os) => {
        const gone = build(g);
        const others = os.map(build);
        const d = keyspaceCleanup(gone, others);
        if (d.action !== 'delete') return;
        const live = others.filter((o, i) => o.metadata.uid !== gone.metadata.uid && !os[i]!.deleting && os[i]!.stateful);
        const ks = (o: (typeof others)[number]) => (o.spec.state as { keyspace?: string } | undefined)?.keyspace ?? o.metadata.name;
        expect(live.filter((o) => ks(o) === d.keyspace)).toEqual([]);
        expect(g.stateful && g.onDelete === 'delete').toBe(true);
      }),
    );
  });
});

/**
 * validate() on the keyed-state rules of issue 21: one Function per keyspace (the rule that
 * reads other Functions), spec.state.backend against statesvc's drivers, spec.state.onDelete.
 */
import { describe, expect, it } from 'vitest';
import { effectiveOnDelete, KEYSPACE_DELETION_POLICY_ANNOTATION } from '../effective.ts';
import { FunctionSchema } from '../kinds/function.ts';
import { validate, type KeyspaceClaim, type ValidationLookup } from './index.ts';

const fn = (name: string, state: Record<string, unknown> | null = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'shop', ...meta },
  spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) },
});
const reasons = (obj: unknown, lookup?: ValidationLookup) => validate(obj, lookup).map((e) => [e.path, e.reason]);

/** The store holds these Functions; the lookup answers who declares a keyspace. */
function holding(...stored: Array<ReturnType<typeof fn>>): ValidationLookup {
  return {
    environment: () => undefined,
    keyspaceHolders: (namespace, keyspace): KeyspaceClaim[] =>
      stored
        .filter((f) => (f.metadata.namespace ?? 'default') === namespace && f.spec.state && ((f.spec.state.keyspace as string | undefined) || f.metadata.name) === keyspace)
        .map((f) => ({ name: f.metadata.name, creationTimestamp: (f.metadata as { creationTimestamp?: string }).creationTimestamp })),
  };
}

describe('a keyspace belongs to one Function', () => {
  const owner = fn('cart', { keyspace: 'carts' }, { creationTimestamp: '2026-01-01T00:00:00Z' });

  it('refuses a second Function declaring a keyspace, naming the owner', () => {
    const errors = validate(fn('checkout', { keyspace: 'carts' }), holding(owner));
    expect(errors).toEqual([
      {
        path: 'spec.state.keyspace',
        reason: 'state_keyspace_taken',
        message: expect.stringContaining('keyspace "carts" in namespace shop belongs to Function shop/cart'),
      },
    ]);
    expect(errors[0]!.message).toContain('set another spec.state.keyspace');
  });

  it('the default keyspace (the name) counts too, and the path is then spec.state', () => {
    expect(reasons(fn('carts'), holding(owner))).toEqual([['spec.state', 'state_keyspace_taken']]);
  });

  it('names the first owner when several already declare it', () => {
    const older = fn('basket', { keyspace: 'carts' }, { creationTimestamp: '2025-12-31T00:00:00Z' });
    expect(validate(fn('x', { keyspace: 'carts' }), holding(owner, older))[0]!.message).toContain('belongs to Function shop/basket');
  });

  it.each([
    ['another keyspace', fn('checkout', { keyspace: 'checkouts' })],
    ['another namespace', fn('checkout', { keyspace: 'carts' }, { namespace: 'other' })],
    ['no state', fn('checkout', null)],
    ['the owner re-applied', owner],
  ])('accepts %s', (_what, obj) => {
    expect(reasons(obj, holding(owner))).toEqual([]);
  });

  it('judges only new declarations: an update that keeps its keyspace passes, one that moves onto a taken keyspace does not', () => {
    const late = fn('checkout', { keyspace: 'carts' }, { creationTimestamp: '2026-02-01T00:00:00Z' });
    // Slipped in while the webhook was off: it can still be updated (and deleted, finalizers removed).
    expect(reasons({ ...late, spec: { ...late.spec, state: { keyspace: 'carts', maxKeys: 5 } } }, { ...holding(owner, late), previous: late })).toEqual([]);
    const elsewhere = fn('checkout', { keyspace: 'mine' });
    expect(reasons(late, { ...holding(owner), previous: elsewhere })).toEqual([['spec.state.keyspace', 'state_keyspace_taken']]);
    expect(reasons(late, { ...holding(owner), previous: fn('checkout', null) })).toEqual([['spec.state.keyspace', 'state_keyspace_taken']]);
  });

  it('is skipped without a lookup that knows other Functions (a single manifest alone)', () => {
    expect(reasons(fn('checkout', { keyspace: 'carts' }))).toEqual([]);
    expect(reasons(fn('checkout', { keyspace: 'carts' }), { environment: () => undefined })).toEqual([]);
  });
});

describe('spec.state.backend: a driver statesvc offers', () => {
  it.each(['memory', 'postgres'])('accepts %s', (backend) => {
    expect(reasons(fn('f', { backend }))).toEqual([]);
  });
  it.each(['redis', 'Postgres', '', 'sqlite'])('refuses %j with state_backend', (backend) => {
    const errors = validate(fn('f', { backend }));
    expect(errors.map((e) => [e.path, e.reason])).toEqual([['spec.state.backend', 'state_backend']]);
    expect(errors[0]!.message).toContain('"memory" or "postgres"');
  });
});

describe('spec.state.onDelete', () => {
  it.each(['retain', 'delete'])('accepts %s', (onDelete) => {
    expect(reasons(fn('f', { onDelete }))).toEqual([]);
  });
  it.each(['Delete', 'purge', '', 1])('refuses %j with state_on_delete', (onDelete) => {
    expect(reasons(fn('f', { onDelete }))).toEqual([['spec.state.onDelete', 'state_on_delete']]);
  });

  const parsed = (state: Record<string, unknown> | null, annotation?: string) =>
    FunctionSchema.parse(fn('f', state, annotation ? { annotations: { [KEYSPACE_DELETION_POLICY_ANNOTATION]: annotation } } : {}));
  it.each([
    ['absent: retain', {}, undefined, 'retain'],
    ['the field', { onDelete: 'delete' }, undefined, 'delete'],
    ['the deprecated annotation when the field is absent', {}, 'delete', 'delete'],
    ['the field wins over the annotation (retain)', { onDelete: 'retain' }, 'delete', 'retain'],
    ['the field wins over the annotation (delete)', { onDelete: 'delete' }, 'retain', 'delete'],
    ['an annotation value other than delete is retain', {}, 'yes', 'retain'],
    ['no spec.state: nothing to delete', null, 'delete', 'retain'],
  ] as const)('effectiveOnDelete: %s', (_what, state, annotation, want) => {
    expect(effectiveOnDelete(parsed(state, annotation))).toBe(want);
  });
});

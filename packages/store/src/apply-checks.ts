import { KIND_SCHEMAS, type Resource, type ResourceKind, type ValidationLookup, isResourceKind, parseResource } from '@orrery/spec';
import { isDeepStrictEqual } from 'node:util';
import { type ApplyOptions, StoreError } from './types.ts';

/**
 * The checks every ResourceStore makes before a write, whatever backs it (embedded database,
 * Kubernetes), so a manifest is refused with the same code and message everywhere.
 */

export function assertKind(kind: string): asserts kind is ResourceKind {
  if (!isResourceKind(kind)) throw new StoreError('invalid', `unknown kind "${kind}": use one of Function, Revision, Environment, RegistryCluster, StateSync`);
}

/** Validates and defaults a resource for apply (JSON form: no `undefined` members). */
export function parseForApply(obj: unknown, lookup?: ValidationLookup): Resource {
  const parsed = parseResource(obj, lookup);
  if (!parsed.ok) {
    const first = parsed.errors[0]!;
    throw new StoreError('invalid', `invalid ${describe(obj)}: ${first.path}: ${first.message}${parsed.errors.length > 1 ? ` (and ${parsed.errors.length - 1} more)` : ''}`, parsed.errors);
  }
  return asJson(parsed.resource);
}

/** Validates a new status against the kind's schema; returns it as it will be stored (or null). */
export function parseStatus(current: Resource, status: unknown): unknown {
  const { kind, metadata } = current;
  const check = KIND_SCHEMAS[kind].safeParse({ ...current, status });
  if (!check.success) {
    const issue = check.error.issues[0]!;
    throw new StoreError('invalid', `invalid status for ${kind} ${metadata.namespace}/${metadata.name}: ${issue.path.join('.')}: ${issue.message}`);
  }
  // JSON form: what is stored, so `undefined` members never look like a change.
  return asJson((check.data as { status?: unknown }).status ?? null);
}

/**
 * Revisions are immutable and made only by the operator from a Function's template: a create
 * needs `allowCreateOnlyKinds` (never set for remote callers), a changed spec is refused.
 * `same` compares specs as the backend stores them (Kubernetes drops empty maps).
 */
export function checkRevisionWrite(res: Resource, prev: { spec?: unknown } | undefined, opts: ApplyOptions, same: (a: unknown, b: unknown) => boolean = isDeepStrictEqual): void {
  if (res.kind !== 'Revision') return;
  const { namespace, name } = res.metadata;
  if (!prev && !opts.allowCreateOnlyKinds) {
    throw new StoreError('immutable', `Revision ${namespace}/${name} cannot be created directly: the operator creates revisions from a Function's template, so change the Function`);
  }
  if (prev && !same(prev.spec, res.spec)) {
    throw new StoreError('immutable', `Revision ${namespace}/${name} is immutable: change the Function's template to create a new revision`);
  }
}

function describe(obj: unknown): string {
  const o = obj as { kind?: unknown; metadata?: { name?: unknown } } | null;
  return `${typeof o?.kind === 'string' ? o.kind : 'resource'}${typeof o?.metadata?.name === 'string' ? ` ${o.metadata.name}` : ''}`;
}

/** The value as it will be stored (jsonb and JSON bodies drop undefined members). */
export function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

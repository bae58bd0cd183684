import { type StateOnDelete, declaredKeyspace, effectiveOnDelete } from '@orrery/spec';

/** What to do with a deleted Function's keyspace data. */
export type KeyspaceCleanup =
  | { action: 'delete'; namespace: string; keyspace: string }
  | { action: 'retain'; why: 'no_state' | 'policy'; namespace?: string; keyspace?: string }
  /** Another Function still declares the keyspace (it slipped past admission): its data, not ours to wipe. */
  | { action: 'retain'; why: 'held'; namespace: string; keyspace: string; holder: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `effectiveOnDelete` over a raw object (an informer's or a store's copy). */
function onDelete(obj: unknown): StateOnDelete {
  if (!isRecord(obj) || !isRecord(obj.metadata) || !isRecord(obj.spec)) return 'retain';
  return effectiveOnDelete(obj as Parameters<typeof effectiveOnDelete>[0]);
}

const meta = (obj: unknown): Record<string, unknown> => (isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : {});

/** The same object: the same uid when both have one (a re-created Function is another), else the same name. */
function sameObject(a: unknown, b: unknown): boolean {
  const ma = meta(a);
  const mb = meta(b);
  if (typeof ma.uid === 'string' && typeof mb.uid === 'string') return ma.uid === mb.uid;
  return ma.name === mb.name && (ma.namespace ?? 'default') === (mb.namespace ?? 'default');
}

/**
 * Whether deleting `gone` deletes its keyspace's data: only with `onDelete: delete` (the field, or
 * the deprecated annotation), and never while another Function in `functions` still declares the
 * same keyspace (a keyspace belongs to one Function, but one may have slipped past admission: the
 * webhook off, two creates racing on Kubernetes, or a Function re-created under the same name
 * before the cleanup ran). A Function being deleted with policy `delete` itself does not hold the
 * keyspace: it is going too. Both backends decide with this, from raw objects.
 */
export function keyspaceCleanup(gone: unknown, functions: Iterable<unknown>): KeyspaceCleanup {
  const mine = declaredKeyspace(gone);
  if (!mine) return { action: 'retain', why: 'no_state' };
  if (onDelete(gone) !== 'delete') return { action: 'retain', why: 'policy', ...mine };
  for (const other of functions) {
    if (sameObject(gone, other)) continue;
    if (meta(other).deletionTimestamp && onDelete(other) === 'delete') continue;
    const theirs = declaredKeyspace(other);
    if (theirs && theirs.namespace === mine.namespace && theirs.keyspace === mine.keyspace) {
      return { action: 'retain', why: 'held', ...mine, holder: String(meta(other).name) };
    }
  }
  return { action: 'delete', ...mine };
}

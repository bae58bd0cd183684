/**
 * A keyspace belongs to one Function (Fission RFC-0023: "v1 does not share state between
 * functions, a keyspace belongs to a single function"; invariant S1). Tokens are derived from
 * (namespace, keyspace) alone, so two Functions declaring one keyspace would get the same token
 * and each could read, overwrite and — with `onDelete: delete` — wipe the other's data.
 *
 * This module is the rule, pure: who owns a keyspace when several Functions declare it, and
 * whether a write is a new declaration. The admission webhook, the stores' apply checks and
 * `orrery validate` refuse a second declaration; the reconcilers and statesvc use the owner
 * order for whatever slipped past admission (webhook off, two applies racing).
 */
import { isRecord } from './path.ts';

/** One Function's declaration of a keyspace, as far as the ownership order needs it. */
export interface KeyspaceClaim {
  /** The Function's name. */
  name: string;
  /** `metadata.creationTimestamp`; absent = not created yet (a manifest being admitted). */
  creationTimestamp?: string;
}

/** Where a Function's state lives: its namespace and its effective keyspace. */
export interface DeclaredKeyspace {
  namespace: string;
  keyspace: string;
}

const created = (c: KeyspaceClaim): number => {
  const t = c.creationTimestamp === undefined ? Number.NaN : Date.parse(c.creationTimestamp);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
};

/**
 * The ownership order: the Function created first owns the keyspace; one not created yet (or
 * with an unreadable timestamp) comes after every created one; equal times (Kubernetes counts
 * whole seconds) go by name. A total order, so every replica and both backends agree.
 */
export function compareClaims(a: KeyspaceClaim, b: KeyspaceClaim): number {
  const ta = created(a);
  const tb = created(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The owner among the Functions declaring one keyspace; undefined when there are none. */
export function keyspaceOwner(claims: readonly KeyspaceClaim[]): KeyspaceClaim | undefined {
  let owner: KeyspaceClaim | undefined;
  for (const c of claims) if (!owner || compareClaims(c, owner) < 0) owner = c;
  return owner;
}

/**
 * The keyspace a Function declares: `spec.state.keyspace`, else the Function's name, in its
 * namespace (default `default`). Undefined for anything that is not a Function with `spec.state`.
 * Reads raw objects leniently (the webhook judges what was submitted).
 */
export function declaredKeyspace(obj: unknown): DeclaredKeyspace | undefined {
  if (!isRecord(obj) || obj.kind !== 'Function' || !isRecord(obj.metadata) || !isRecord(obj.spec) || !isRecord(obj.spec.state)) return undefined;
  const name = obj.metadata.name;
  if (typeof name !== 'string' || !name) return undefined;
  const namespace = typeof obj.metadata.namespace === 'string' && obj.metadata.namespace ? obj.metadata.namespace : 'default';
  const explicit = obj.spec.state.keyspace;
  return { namespace, keyspace: typeof explicit === 'string' && explicit ? explicit : name };
}

/** A Function object's claim (name and creation time). */
export function claimOf(obj: unknown): KeyspaceClaim | undefined {
  if (!isRecord(obj) || !isRecord(obj.metadata) || typeof obj.metadata.name !== 'string') return undefined;
  const ts = obj.metadata.creationTimestamp;
  return { name: obj.metadata.name, ...(typeof ts === 'string' ? { creationTimestamp: ts } : {}) };
}

/**
 * The other Functions among `functions` that declare the same keyspace as `fn` (same namespace,
 * same effective keyspace, another name). Empty when `fn` declares none.
 */
export function rivalClaims(fn: unknown, functions: Iterable<unknown>): KeyspaceClaim[] {
  const mine = declaredKeyspace(fn);
  const self = claimOf(fn);
  if (!mine || !self) return [];
  const out: KeyspaceClaim[] = [];
  for (const other of functions) {
    const theirs = declaredKeyspace(other);
    const claim = claimOf(other);
    if (!theirs || !claim || claim.name === self.name) continue;
    if (theirs.namespace === mine.namespace && theirs.keyspace === mine.keyspace) out.push(claim);
  }
  return out;
}

/**
 * The Function that owns the keyspace `fn` declares when it is not `fn` itself (the reconcilers'
 * and the token minting's question), else undefined: `fn` owns it, or declares none.
 */
export function keyspaceHeldBy(fn: unknown, functions: Iterable<unknown>): string | undefined {
  const self = claimOf(fn);
  if (!self) return undefined;
  const owner = keyspaceOwner([self, ...rivalClaims(fn, functions)]);
  return owner && owner.name !== self.name ? owner.name : undefined;
}

/**
 * Whether writing `next` over `previous` (undefined = a create) declares a keyspace the object
 * did not declare before: state added, or another effective keyspace. Admission judges only
 * these (like Kubernetes' ratcheting validation), so a Function that already declares its
 * keyspace can always be updated, its finalizers removed and so on.
 */
export function declaresNewKeyspace(previous: unknown, next: unknown): boolean {
  const now = declaredKeyspace(next);
  if (!now) return false;
  const before = declaredKeyspace(previous);
  return !before || before.namespace !== now.namespace || before.keyspace !== now.keyspace;
}

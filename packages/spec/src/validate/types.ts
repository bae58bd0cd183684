import type { Environment } from '../kinds/environment.ts';
import type { KeyspaceClaim } from './keyspace-owner.ts';
import type { Reason } from './reasons.ts';

/** One problem in a resource: where (JSON path), what (stable code), and what to do (human). */
export interface ValidationError {
  /** JSON path such as `spec.traffic[1].percent`; `` for the document itself. */
  path: string;
  reason: Reason;
  message: string;
}

/** Resolves other resources a rule depends on; absent = those rules are skipped. */
export interface ValidationLookup {
  environment(namespace: string, name: string): Environment | undefined;
  /**
   * The Functions that already declare this keyspace (any order; the object being judged may be
   * among them and is skipped by name). Absent = the one-owner rule is skipped.
   */
  keyspaceHolders?(namespace: string, keyspace: string): readonly KeyspaceClaim[];
  /**
   * The object as stored before this write (an UPDATE), for rules that judge only what a write
   * changes: a Function that already declared its keyspace is not a new declaration.
   */
  previous?: unknown;
}

export type Segment = string | number;

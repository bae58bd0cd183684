import type { Environment } from '../kinds/environment.ts';
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
}

export type Segment = string | number;

/**
 * What `orrery apply` reports per object, like kubectl: `created` (absent before), `unchanged`
 * (the store kept the same resourceVersion: an identical apply is a no-op) or `configured`.
 */
import type { Resource } from '@orrery/spec';

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';

export function applyOutcome(before: Resource | undefined, after: Resource): ApplyOutcome {
  if (!before) return 'created';
  return before.metadata.resourceVersion === after.metadata.resourceVersion ? 'unchanged' : 'configured';
}

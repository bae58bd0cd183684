import { isDeepStrictEqual } from 'node:util';

/**
 * Generation follows Kubernetes: 1 on create, +1 only when the spec changes, so
 * `status.observedGeneration == metadata.generation` tells a GitOps tool the change is done.
 */
export function nextGeneration(previous: { generation: number; spec: unknown } | undefined, spec: unknown): number {
  if (!previous) return 1;
  return isDeepStrictEqual(previous.spec, spec) ? previous.generation : previous.generation + 1;
}

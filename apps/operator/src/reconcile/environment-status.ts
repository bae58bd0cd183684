import type { Environment } from '@orrery/spec';
import { setCondition } from './conditions.ts';

/**
 * An Environment is Ready once accepted: its pool of warm workers is created lazily, when the first
 * pool-executor revision of that environment becomes routable, so the warm count is reported, not
 * waited for.
 */
export function environmentStatus(env: Environment, readyPoolWorkers: number, now: Date): NonNullable<Environment['status']> {
  const message =
    readyPoolWorkers > 0
      ? `${readyPoolWorkers}/${env.spec.poolSize} warm pool workers ready`
      : `accepted; warm pool workers start with the first pool-executor revision (poolSize ${env.spec.poolSize})`;
  return {
    ...env.status,
    observedGeneration: env.metadata.generation,
    readyPoolWorkers,
    conditions: setCondition(env.status?.conditions, { type: 'Ready', status: 'True', reason: readyPoolWorkers > 0 ? 'PoolReady' : 'Accepted', message }, now),
  };
}

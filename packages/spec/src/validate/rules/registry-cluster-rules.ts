import type { ObjectRule } from './object-rule.ts';

/** On RegistryCluster.spec.replicas: an odd number of Raft voters (replicas < 1 is replicas_min). */
export const REPLICAS_ODD: ObjectRule = {
  reason: 'replicas_odd',
  cel: 'self < 1 || self % 2 == 1',
  holds: (n) => typeof n !== 'number' || n < 1 || n % 2 === 1,
};

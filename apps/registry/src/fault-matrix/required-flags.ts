/**
 * Every setting the seed requires without a default, given explicitly as flags both the older
 * and the seed-style config accept, so the fault tests do not depend on the fixture's defaults.
 */
export const REQUIRED_FLAGS: readonly string[] = [
  '--region', 'local',
  '--cluster-id', 'fault-matrix',
  '--shutdown-timeout', '5s',
  '--cleanup-interval', '30s',
  '--cleanup-delete-limit', '128',
];

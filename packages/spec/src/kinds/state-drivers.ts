/**
 * The statestore drivers statesvc offers (`orrery-statesvc --driver`): `spec.state.backend` may
 * name only these. One list, read by the spec's schema, statesvc's flag check and statestore's
 * `openDriver`.
 */
export const STATE_DRIVERS = ['memory', 'postgres'] as const;
export type StateDriverName = (typeof STATE_DRIVERS)[number];

export function isStateDriverName(value: unknown): value is StateDriverName {
  return typeof value === 'string' && (STATE_DRIVERS as readonly string[]).includes(value);
}

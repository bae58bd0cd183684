/**
 * How the local platform starts its node processes so that they hold less memory when idle
 * (issue 24's memory row; measured in docs/performance.md "memory").
 *
 * - The operator is a control plane that waits for events most of the time. `--optimize-for-size`
 *   has V8 keep a small young generation and grow the heap slowly; the operator's heap was twice
 *   its live objects without it (heap total ~120 MiB for ~50 MiB live after a minute idle).
 *   The routers and statesvc sit on the request path and keep V8's defaults.
 * - glibc's malloc gets a fixed mmap threshold (128 KiB, its starting value). By default the
 *   threshold rises to the size of any large block freed, after which large buffers (request
 *   bodies, the store's snapshots) come from the main heap and stay there as fragments after
 *   they are freed. Fixed, each large buffer is its own mapping, returned to the system when freed.
 *
 * A value the user already set in the environment is kept; `ORRERY_NODE_MEMORY_TUNING=off`
 * turns both off.
 */

/** node flags of the operator on the local platform. */
export const OPERATOR_NODE_FLAGS: readonly string[] = ['--optimize-for-size'];

/** glibc's mmap threshold for the platform's node processes (bytes). */
export const MALLOC_MMAP_THRESHOLD_BYTES = 128 * 1024;

const tuningOff = (env: NodeJS.ProcessEnv): boolean => env.ORRERY_NODE_MEMORY_TUNING === 'off';

/** The node flags (before the script) for one app of the local platform. */
export function nodeFlagsFor(app: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (tuningOff(env)) return [];
  return app === 'operator' ? [...OPERATOR_NODE_FLAGS] : [];
}

/** `env` with the malloc setting added, unless the user set it or turned tuning off. */
export function withMallocSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (tuningOff(env) || env.MALLOC_MMAP_THRESHOLD_ !== undefined) return env;
  return { ...env, MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD_BYTES) };
}

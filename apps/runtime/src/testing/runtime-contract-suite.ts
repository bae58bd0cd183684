/**
 * The one contract every function runtime passes (the Node runtime here, the Python runtime in
 * apps/runtime-python): each part registers its tests against a RuntimeUnderTest, and each
 * runtime's int test file for that part calls it, keeping the tests of what only that runtime has
 * beside it. The parts stay in separate test files so vitest runs them side by side and each
 * starts only the services it needs (etcd and the registry, statesvc).
 */
import { poolContract } from './pool-contract.ts';
import { queueProxyContract } from './queue-proxy-contract.ts';
import { registryContract } from './registry-contract.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';
import { serveContract } from './serve-contract.ts';
import { stateContract } from './state-contract.ts';
import { structuredLogsContract } from './structured-logs-contract.ts';

export type { RuntimeUnderTest } from './runtime-under-test.ts';

/** The parts, by the int test file (`<part>.int.test.ts`) that registers them. */
export const RUNTIME_CONTRACT = {
  /** Deploy mode: requests and answers, reserved paths (/healthz /readyz /v1/stats), flags. */
  'serve': serveContract,
  /** Pool mode: the single-use specialize nonce, the state token file, registration as the revision. */
  'specialize': poolContract,
  /** containerConcurrency and queue_full, the 504 timeout, body caps, the SIGTERM drain. */
  'queue-proxy': queueProxyContract,
  /** Registration in the real registry with the revision's credential. */
  'real-registry': registryContract,
  /** ctx.state through the real statesvc: token file, counting, fencing. */
  'real-statesvc': stateContract,
  /** JSON log records with the secrets redacted. */
  'structured-logs': structuredLogsContract,
} satisfies Record<string, (runtime: RuntimeUnderTest) => void>;

export type RuntimeContractPart = keyof typeof RUNTIME_CONTRACT;

/** Registers one part of the runtime contract (or every part) for `runtime`. */
export function runtimeContractSuite(runtime: RuntimeUnderTest, parts: RuntimeContractPart[] = Object.keys(RUNTIME_CONTRACT) as RuntimeContractPart[]): void {
  for (const part of parts) RUNTIME_CONTRACT[part](runtime);
}

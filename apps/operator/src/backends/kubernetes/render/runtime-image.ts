import { type Environment, EnvironmentSpecSchema } from '@orrery/spec';

/**
 * The runtime image the chart builds and names (`runtime.image` in values.yaml, passed as
 * `--runtime-image`); this default only serves an operator started by hand.
 */
export const DEFAULT_RUNTIME_IMAGE = 'orrery/runtime:latest';

/** What an Environment's `spec.image` holds when its author left it out (the schema's default). */
const SPEC_DEFAULT_IMAGE = EnvironmentSpecSchema.parse({}).image;

/**
 * The image a worker runs: the Environment's own when its author chose one; the platform's
 * runtime image when there is no Environment or it kept the schema default (which the local
 * backend ignores and no registry publishes).
 */
export function runtimeImageFor(environment: Environment | undefined, platformImage = DEFAULT_RUNTIME_IMAGE): string {
  const chosen = environment?.spec.image;
  return chosen && chosen !== SPEC_DEFAULT_IMAGE ? chosen : platformImage;
}

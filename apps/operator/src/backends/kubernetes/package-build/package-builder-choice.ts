import { type BuilderRuntime, builderForRuntimeImage } from '@orrery/builder';

const repository = (image: string) => image.replace(/@sha256:[0-9a-f]+$/, '').replace(/:[^/:]+$/, '');

/**
 * Which builder a worker image needs: @orrery/builder's answer for the runtime images it knows,
 * and npm for the platform's own runtime image (`--runtime-image`, the chart's orrery/runtime: the
 * Node runtime under the name the chart builds it). Undefined: an image nobody knows how to build for.
 */
export function packageBuilderFor(workerImage: string, platformRuntimeImage: string): BuilderRuntime | undefined {
  const known = builderForRuntimeImage(workerImage);
  if (known) return known;
  const repo = repository(workerImage);
  return repo === repository(platformRuntimeImage) || repo === 'orrery/runtime' || repo.endsWith('/orrery/runtime') ? 'node' : undefined;
}

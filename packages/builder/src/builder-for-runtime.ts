export type BuilderRuntime = 'node' | 'python';

/** Which builder a runtime image needs: npm for the Node runtime, pip for the Python one, none for others. */
export function builderForRuntimeImage(image: string): BuilderRuntime | undefined {
  const repository = image.replace(/@sha256:[0-9a-f]+$/, '').replace(/:[^/:]+$/, '');
  if (repository === 'orrery/runtime-node' || repository.endsWith('/orrery/runtime-node')) return 'node';
  if (repository === 'orrery/runtime-python' || repository.endsWith('/orrery/runtime-python')) return 'python';
  return undefined;
}

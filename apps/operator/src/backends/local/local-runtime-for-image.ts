/**
 * Which program a local worker runs for an Environment's `spec.image` (as in Fission, the image
 * picks the runtime): the local backend has no container runtime, so each image Orrery ships maps
 * to the program its Dockerfile starts — `orrery/runtime` and `orrery/runtime-node` to the Node.js
 * runtime, `orrery/runtime-python` to the Python runtime on python3. Any other image has no local
 * program: its revisions and its Environment say so in a status condition instead of running
 * something else. Pure.
 */
import type { RuntimeCommand } from './runtime-bundle.ts';

/** The two runtimes' commands as the operator found them at start (python3 may be missing). */
export interface LocalRuntimeCommands {
  node: RuntimeCommand;
  python: RuntimeCommand | { unavailable: string };
}

export type LocalRuntime =
  | { ok: true; runtime: 'node' | 'python'; command: RuntimeCommand }
  | { ok: false; reason: 'ImageNotRunnableLocally' | 'RuntimeUnavailable'; message: string };

const NODE_IMAGES = new Set(['runtime', 'runtime-node']);
const PYTHON_IMAGE = 'runtime-python';

/** `registry.example.com:5000/orrery/runtime-python:1.2@sha256:…` → `['orrery', 'runtime-python']` (registry, tag and digest dropped). */
function repositoryPath(image: string): string[] {
  let rest = image.trim().split('@')[0]!;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) rest = rest.slice(0, colon);
  const parts = rest.split('/');
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) parts.shift();
  return parts;
}

/** The runtime for an Environment's image; no Environment (or no image) runs the Node.js runtime, as before. */
export function localRuntimeForImage(image: string | undefined, commands: LocalRuntimeCommands): LocalRuntime {
  if (image === undefined || image.trim() === '') return { ok: true, runtime: 'node', command: commands.node };
  const path = repositoryPath(image);
  const name = path.at(-1)!;
  const orrery = path.length === 2 && path[0] === 'orrery';
  if (orrery && NODE_IMAGES.has(name)) return { ok: true, runtime: 'node', command: commands.node };
  if (orrery && name === PYTHON_IMAGE) {
    if ('unavailable' in commands.python) return { ok: false, reason: 'RuntimeUnavailable', message: `image "${image}" runs the Python runtime, which cannot start here: ${commands.python.unavailable}` };
    return { ok: true, runtime: 'python', command: commands.python };
  }
  return {
    ok: false,
    reason: 'ImageNotRunnableLocally',
    message: `image "${image}" has no local runtime: the local backend runs orrery/runtime-node (Node.js) and orrery/runtime-python (Python) Environments; use one of those images, or run this Environment on the Kubernetes backend`,
  };
}

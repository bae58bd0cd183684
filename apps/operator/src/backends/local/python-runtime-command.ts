/**
 * How the local backend starts the Python runtime (apps/runtime-python, docs/python.md): Debian's
 * python3 running the runtime's script from this checkout, isolated (`-I`: no PYTHON* variables of
 * the worker's environment, no user site-packages) and without bytecode files (`-B`: nothing is
 * written beside the runtime's sources, which workers may not own). Which python3: ORRERY_PYTHON
 * when set, else /usr/bin/python3 (Debian's), else the first python3 on PATH. Pure over the given
 * environment and file check.
 */
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { RuntimeCommand } from './runtime-bundle.ts';

export const PYTHON_RUNTIME_SCRIPT = join(import.meta.dirname, '..', '..', '..', '..', 'runtime-python', 'orrery-runtime-python.py');
const DEBIAN_PYTHON = '/usr/bin/python3';

export function pythonRuntimeCommand(
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (path: string) => boolean = existsSync,
  script = PYTHON_RUNTIME_SCRIPT,
): RuntimeCommand | { unavailable: string } {
  if (!exists(script)) return { unavailable: `the runtime's script ${script} is missing from this checkout` };
  const chosen = env.ORRERY_PYTHON?.trim();
  if (chosen) {
    if (isAbsolute(chosen) && !exists(chosen)) return { unavailable: `ORRERY_PYTHON names ${chosen}, which does not exist` };
    return { command: chosen, args: ['-I', '-B', script] };
  }
  const onPath = (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'python3'));
  const python = [DEBIAN_PYTHON, ...onPath].find((p) => exists(p));
  if (!python) return { unavailable: 'python3 is not installed (apt-get install python3), or set ORRERY_PYTHON to a python3 (3.9 or newer)' };
  return { command: python, args: ['-I', '-B', script] };
}

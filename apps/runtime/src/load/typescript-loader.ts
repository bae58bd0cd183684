/**
 * The runtime may run as one precompiled JavaScript file on plain `node` (the local backend
 * bundles it: starting through tsx costs a few hundred ms per worker, most of it tsx's loader
 * thread). Function code from a file or URL may be TypeScript, or import TypeScript beside it, so
 * tsx's loader is registered before such code loads; inline code (JavaScript) loads without it.
 * (Registering after a failed import does not help: Node keeps the failed module in its cache.)
 *
 * `BUNDLED` is set by the bundle's banner (apps/operator/src/backends/local/runtime-bundle.ts); started through tsx (bin/orrery-runtime.mjs) or in
 * tests, TypeScript already loads and this does nothing.
 */
import { importModule } from './module-import.ts';

const BUNDLED = Symbol.for('orrery.runtime.bundled');
const REGISTERED = Symbol.for('orrery.runtime.typescript-loader');

type Flags = Record<symbol, unknown>;

export async function registerTypeScriptLoader(): Promise<void> {
  const g = globalThis as Flags;
  if (g[BUNDLED] !== true || g[REGISTERED] === true) return;
  // Through the code-cached boot's import() when there is one (module-import.ts): tsx's
  // CommonJS entry cannot register its ESM loader.
  const { register } = (await importModule('tsx/esm/api')) as typeof import('tsx/esm/api');
  register();
  g[REGISTERED] = true;
}

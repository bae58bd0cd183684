/**
 * How the embedded Postgres (PGlite) is sized. initdb writes Postgres's server default of
 * shared_buffers = 128MB into postgresql.conf, and PGlite touches all of it inside its WebAssembly
 * memory: ~130–160 MiB of the local operator's resident memory for a store that holds a few MiB.
 * 16 MB keeps every table of a local platform cached many times over (measured: start and
 * queries no slower). A command-line setting, so it also applies to data dirs made before it.
 */
import { PGlite } from '@electric-sql/pglite';
import { setFlagsFromString } from 'node:v8';

export const EMBEDDED_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters plus the embedded sizing (its defaults stay in force). */
export const embeddedStartParams = (): string[] => [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];

/**
 * V8 compiles PGlite's 9 MB WebAssembly module with its baseline compiler (Liftoff) and then again
 * with TurboFan for hot functions; the second compiler's code and the memory its background
 * threads leave in malloc's arenas were ~55 MiB of the local operator's resident memory (314 →
 * 257 MiB measured on `npm start`), while a small embedded store's queries ran no slower on
 * Liftoff code alone (docs/performance.md). Set before the first PGlite compiles its module;
 * it applies to every WebAssembly module this process compiles afterwards.
 */
export function compileWasmWithLiftoffOnly(): void {
  if (process.env.ORRERY_PGLITE_WASM_TIERING === 'on') return;
  setFlagsFromString('--liftoff-only');
}

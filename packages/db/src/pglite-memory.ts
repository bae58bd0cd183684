/**
 * How the embedded Postgres (PGlite) is sized. initdb writes Postgres's server default of
 * shared_buffers = 128MB into postgresql.conf, and PGlite touches all of it inside its WebAssembly
 * memory: ~130–160 MiB of the local operator's resident memory for a store that holds a few MiB.
 * 16 MB keeps every table of a local platform cached many times over (measured: start and
 * queries no slower). A command-line setting, so it also applies to data dirs made before it.
 */
import { PGlite } from '@electric-sql/pglite';

export const EMBEDDED_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters plus the embedded sizing (its defaults stay in force). */
export const embeddedStartParams = (): string[] => [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];

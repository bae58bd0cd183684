import { build, type Metafile } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The router reads the resource store over HTTP; the embedded database's code (PGlite, drizzle,
 * postgres.js, @orrery/db and the store's local backend) came in through the @orrery/store barrel
 * and cost every router ~7 MiB of start-up peak and 2–11 MiB of idle memory
 * (docs/performance.md, memory). It imports `@orrery/store/client` instead.
 */
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
let meta: Metafile;

beforeAll(async () => {
  const out = await build({ entryPoints: [MAIN], bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['@opentelemetry/*'], write: false, metafile: true, logLevel: 'silent' });
  meta = out.metafile;
}, 30_000);

const inputs = () => Object.keys(meta.inputs);

describe('the router bundle', () => {
  it('carries no database code: no PGlite, drizzle, postgres.js, @orrery/db or the local store', () => {
    const database = inputs().filter((p) => /node_modules\/(@electric-sql\/pglite|drizzle-orm|postgres)\/|packages\/db\/src\/|packages\/store\/src\/local-store\.ts$/.test(p));
    expect(database).toEqual([]);
  });

  it('still carries the store client it reads routes through', () => {
    expect(inputs().some((p) => p.endsWith('packages/store/src/http/store-client.ts'))).toBe(true);
    expect(inputs().some((p) => p.endsWith('packages/store/src/store-mirror.ts'))).toBe(true);
  });
});

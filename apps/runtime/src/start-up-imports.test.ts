import { build, type Metafile } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * What a worker's bundle evaluates at start is on every deploy-executor cold start's path
 * (docs/performance.md "coldstart"): the @orrery/spec barrel alone (zod schemas, OpenAPI
 * documents) was 55 % of the bundle and ~20 ms of module evaluation, node:http2 ~6 ms, ws ~4 ms.
 */
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
let meta: Metafile;

beforeAll(async () => {
  const out = await build({ entryPoints: [MAIN], bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['tsx', 'tsx/*'], write: false, metafile: true, logLevel: 'silent' });
  meta = out.metafile;
}, 30_000);

const inputs = () => Object.keys(meta.inputs);
const staticImportsOf = (path: string) =>
  Object.entries(meta.inputs).flatMap(([from, i]) => i.imports.filter((x) => x.path === path && x.kind === 'import-statement').map(() => from));

describe('the runtime bundle', () => {
  it('leaves out the @orrery/spec barrel and zod (import the subpaths: @orrery/spec/state-credentials, …)', () => {
    expect(inputs().filter((p) => p.endsWith('packages/spec/src/index.ts') || p.includes('node_modules/zod/'))).toEqual([]);
  });

  it('still carries what it imports from @orrery/spec by subpath', () => {
    expect(inputs().some((p) => p.endsWith('packages/spec/src/wire/state-credentials.ts'))).toBe(true);
  });

  it('does not evaluate ws at start (its server is made on the first WebSocket handshake)', () => {
    const intoWs = (kind: string) =>
      Object.entries(meta.inputs).filter(([from, i]) => !from.includes('node_modules/ws/') && i.imports.some((x) => x.path.includes('node_modules/ws/') && x.kind === kind));
    expect(intoWs('import-statement').map(([from]) => from)).toEqual([]);
    expect(intoWs('dynamic-import').length).toBe(1);
  });

  it('does not import node:http2 at start (the HTTP/2 server is made on the first HTTP/2 connection)', () => {
    expect([...staticImportsOf('node:http2'), ...staticImportsOf('http2')]).toEqual([]);
  });
});

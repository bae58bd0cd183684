// Builds dist/orrery.mjs: the CLI and the workspace packages it uses (TypeScript source) in one
// ES module, so `npm pack` gives a tarball that installs without the repo. etcd3 stays out: it
// loads its .proto files from beside itself, so it is a runtime dependency from the npm registry.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'src', 'main.ts')],
  outfile: join(root, 'dist', 'orrery.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['etcd3'],
  // CommonJS dependencies call require() for Node's built-ins; an ES module has none of its own.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __orreryRequire } from 'node:module';\nconst require = __orreryRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
console.log('bundled dist/orrery.mjs');

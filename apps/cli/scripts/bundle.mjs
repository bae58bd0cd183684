// Builds dist/orrery.mjs: the CLI and the workspace packages it uses (TypeScript source) in one
// ES module, so `npm pack` gives a tarball that installs without the repo. etcd3 stays out: it
// loads its .proto files from beside itself, so it is a runtime dependency from the npm registry.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const outfile = join(root, 'dist', 'orrery.mjs');
const result = await build({
  entryPoints: [join(root, 'src', 'main.ts')],
  outfile,
  write: false,
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
// Written aside and renamed into place: two packs at once (a test and a user) never read half a file.
mkdirSync(dirname(outfile), { recursive: true });
const aside = `${outfile}.${process.pid}.tmp`;
writeFileSync(aside, result.outputFiles[0].contents, { mode: 0o755 });
renameSync(aside, outfile);
console.log('bundled dist/orrery.mjs');

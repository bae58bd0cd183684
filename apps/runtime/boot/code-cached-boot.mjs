/**
 * Starts orrery-runtime from its CommonJS body through V8's code cache:
 *
 *   node code-cached-boot.mjs [--write-cache <file>] <body.cjs> <cache file> [runtime arguments…]
 *
 * Node 20 keeps no compile cache for user code, so every worker used to parse and compile the
 * runtime's ~450 KB bundle, and compile each function it ran at start, from scratch (~9 ms of a
 * ~100 ms start on this machine: docs/performance.md "coldstart"). With the cache V8 takes the
 * compiled code as it was when the cache was made. A missing cache, or one V8 rejects (another
 * node or other V8 flags), only costs that compile: the body runs the same either way.
 *
 * Workers only read the cache. The local backend makes it once per body, with a worker running
 * a function of its own (`--write-cache`: written when that worker exits), so no function
 * author's code runs in a process whose compiled code later workers load. The instruction is an
 * argument, not an environment variable: a Function's `env` reaches its workers, its arguments
 * come only from the operator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import vm from 'node:vm';

const out = process.argv[2] === '--write-cache' ? process.argv.splice(2, 2)[1] : undefined;
const [bodyArg, cacheFile] = process.argv.splice(2, 2);
if (!bodyArg || !cacheFile || out === '') {
  process.stderr.write('usage: node code-cached-boot.mjs [--write-cache <file>] <body.cjs> <cache file> [runtime arguments…]\n');
  process.exit(2);
}
const body = resolve(bodyArg);
// Code compiled from a cache cannot call import() in Node 20 (its dynamic-import callback is
// lost); the body imports function modules through this one (apps/runtime/src/load/module-import.ts).
globalThis[Symbol.for('orrery.runtime.import')] = (specifier) => import(specifier);

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // not made yet: compile from source
}
let source;
try {
  source = readFileSync(body, 'utf8');
} catch (err) {
  // The operator names the body (build:apps or its own compile); say which file and how to make it.
  process.stderr.write(`orrery-runtime boot: cannot read the runtime body ${body} (${err.code ?? err.message}); run \`npm run build:apps\` or start the operator again, which compiles it\n`);
  process.exit(2);
}
// Strict as the ES module bundle is (the body's own "use strict" follows its banner line, so it is no directive).
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {'use strict';${source}\n})`, { filename: body, cachedData });
// Read by the runtime for its "worker ready" record.
globalThis[Symbol.for('orrery.runtime.codeCache')] = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';

// At exit the cache holds what ran: the start, the first request's path, the shutdown.
if (out) process.on('exit', () => writeFileSync(out, script.createCachedData()));

const mod = { exports: {} };
script.runInThisContext().call(mod.exports, mod.exports, createRequire(body), mod, body, dirname(body));

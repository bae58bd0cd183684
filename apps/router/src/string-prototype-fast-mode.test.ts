import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessGroup } from './testing/processes.ts';

const MODULE = fileURLToPath(new URL('./string-prototype-fast-mode.ts', import.meta.url));
const ROUTER_BIN = fileURLToPath(new URL('../bin/orrery-router.mjs', import.meta.url));

/** In a fresh node with V8's natives syntax: is String.prototype in fast mode after loading ioredis, before and after the restore? */
function fastModeAroundRestore(): { afterIoredis: boolean; afterRestore: boolean } {
  const script = `
    const fast = new Function('o', 'return %HasFastProperties(o)');
    await import('ioredis');
    const afterIoredis = fast(String.prototype);
    const { restoreFastStringPrototype } = await import(${JSON.stringify(MODULE)});
    restoreFastStringPrototype();
    console.log(JSON.stringify({ afterIoredis, afterRestore: fast(String.prototype) }));`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { afterIoredis: boolean; afterRestore: boolean };
}

describe('restoreFastStringPrototype', () => {
  it('puts String.prototype back into fast mode after ioredis declared its class over String', () => {
    // If a future ioredis or V8 leaves the prototype fast, `afterIoredis` says the restore is moot.
    expect(fastModeAroundRestore()).toEqual({ afterIoredis: false, afterRestore: true });
  });

  const g = new ProcessGroup();
  afterAll(() => g.stopAll());

  it('the router calls it once every module is loaded: String.prototype is fast when it says listening', { timeout: 40_000 }, async () => {
    // Prints V8's view of String.prototype just before the router's `listening` line.
    const probe = g.write(
      'fast-mode-probe.cjs',
      `const fast = new Function('o', 'return %HasFastProperties(o)');
       const log = console.log;
       console.log = (...a) => { if (String(a[0]).startsWith('listening ')) log('string-prototype-fast ' + fast(String.prototype)); log(...a); };`,
    );
    const routes = g.write('routes.yaml', '');
    const endpoints = g.write('endpoints.yaml', '[]\n');
    const s = await g.start(
      ['--allow-natives-syntax', '--require', probe, ROUTER_BIN, '--port', '0', '--admin-port', '0', '--routes-file', routes, '--endpoints-file', endpoints],
      /string-prototype-fast (true|false)\n/,
      'orrery-router',
    );
    expect(s.match[1]).toBe('true');
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { listeningUrl } from '../../testing/listening-url.ts';
import { CODE_CACHED_BOOT, runtimeCommand, TSX_RUNTIME_BIN } from './runtime-bundle.ts';

const { bundleStaleness } = (await import(pathToFileURL(join(import.meta.dirname, '..', '..', '..', '..', '..', 'scripts', 'app-launch.mjs')).href)) as {
  bundleStaleness: (app: string) => string | undefined;
};

const dir = mkdtempSync(join(tmpdir(), 'orrery-runtime-bundle-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a deploy-mode worker with the given command and returns its URL (and what it logged so far). */
async function startWorker(cmd: { command: string; args: string[] }, source: string[], env: Record<string, string> = {}): Promise<{ url: string; log: () => string; child: ChildProcess }> {
  const child = spawn(cmd.command, [...cmd.args, '--port', '0', '--function', 'f', '--revision', 'f-00001', '--work-dir', join(dir, `w${children.length}`), ...source], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await listeningUrl(child, () => out);
  return { url, log: () => out, child };
}
const start = async (cmd: { command: string; args: string[] }, source: string[], env: Record<string, string> = {}) => (await startWorker(cmd, source, env)).url;

/** The `codeCache` field of a worker's "worker ready" record, once it is written. */
async function codeCacheOf(worker: { log: () => string }): Promise<string | undefined> {
  for (let i = 0; i < 100 && !worker.log().includes('"worker ready"'); i++) await new Promise((r) => setTimeout(r, 20));
  const ready = worker.log().split('\n').find((l) => l.includes('"worker ready"'));
  return ready ? (JSON.parse(ready) as { codeCache?: string }).codeCache : undefined;
}

describe('the bundled runtime (plain node)', () => {
  it('is a single JavaScript file, not the tsx bin: compiled at start, or the fresh build:apps bundle', { timeout: 60_000 }, async () => {
    const compiled = await runtimeCommand(undefined, { reuseAppBundle: false, codeCache: false });
    expect(compiled.args).toHaveLength(1);
    expect(compiled.args[0]).toMatch(/orrery-runtime-[0-9a-f]{16}\.mjs$/);
    const either = await runtimeCommand(undefined, { codeCache: false });
    expect(either.args).toHaveLength(1);
    expect(either.args[0]).not.toBe(TSX_RUNTIME_BIN);
    const fresh = bundleStaleness('runtime') === undefined;
    expect(either.args[0]).toMatch(fresh ? /apps\/runtime\/dist\/orrery-runtime\.mjs$/ : /orrery-runtime-[0-9a-f]{16}\.mjs$/);
  });

  it('by default starts a CommonJS body through the code-cached boot, with a cache made for that body', { timeout: 60_000 }, async () => {
    // Made afresh here (a worker of its own, `--write-cache`), whatever an earlier start left.
    rmSync((await runtimeCommand(undefined, { reuseAppBundle: false })).args[2]!, { force: true });
    const logs: string[] = [];
    const compiled = await runtimeCommand((m) => logs.push(m), { reuseAppBundle: false });
    expect(logs.join('\n')).toMatch(/runtime code cache made in \d+ ms/);
    expect(compiled.args).toHaveLength(3);
    const [boot, body, cache] = compiled.args as [string, string, string];
    expect(boot).toBe(CODE_CACHED_BOOT);
    expect(body).toMatch(/orrery-runtime-[0-9a-f]{16}\.cjs$/);
    expect(cache).toMatch(/orrery-runtime-[0-9a-f]{16}\.v8cache$/);
    expect(existsSync(cache)).toBe(true);
    // Compiled code every worker loads: nobody but its owner may change it.
    expect(statSync(cache).mode & 0o022).toBe(0);
    expect(statSync(body).mode & 0o022).toBe(0);
    const fresh = bundleStaleness('runtime') === undefined;
    const either = await runtimeCommand();
    expect(either.args[1]).toMatch(fresh ? /apps\/runtime\/dist\/orrery-runtime\.body\.cjs$/ : /orrery-runtime-[0-9a-f]{16}\.cjs$/);

    const worker = await startWorker(compiled, [], { ORRERY_SOURCE_INLINE: `export default async () => new Response('cached')` });
    expect(await (await fetch(`${worker.url}/`)).text()).toBe('cached');
    expect(await codeCacheOf(worker)).toBe('used');

    // A cache V8 will not take (here: another body's bytes) costs only the compile.
    const wrong = join(dir, 'wrong.v8cache');
    writeFileSync(wrong, readFileSync(cache).subarray(0, 4096));
    const rejected = await startWorker({ command: compiled.command, args: [boot, body, wrong] }, [], { ORRERY_SOURCE_INLINE: `export default async () => new Response('still')` });
    expect(await (await fetch(`${rejected.url}/`)).text()).toBe('still');
    expect(await codeCacheOf(rejected)).toBe('rejected');
    // A Function's environment reaches its workers: no variable there makes a worker write a cache.
    const none = await startWorker({ command: compiled.command, args: [boot, body, join(dir, 'absent.v8cache')] }, [], {
      ORRERY_SOURCE_INLINE: `export default async () => new Response('none')`,
      ORRERY_RUNTIME_CODE_CACHE_OUT: join(dir, 'from-env.v8cache'),
    });
    expect(await (await fetch(`${none.url}/`)).text()).toBe('none');
    expect(await codeCacheOf(none)).toBe('none');
    const exited = new Promise((r) => none.child.once('exit', r));
    none.child.kill('SIGTERM');
    await exited;
    expect(existsSync(join(dir, 'absent.v8cache'))).toBe(false);
    expect(existsSync(join(dir, 'from-env.v8cache'))).toBe(false);
  });

  it('a body that is not there: the boot names the file and how to make it, exit 2, no stack', { timeout: 30_000 }, async () => {
    const missing = join(dir, 'gone', 'orrery-runtime.body.cjs');
    const child = spawn(process.execPath, [CODE_CACHED_BOOT, missing, join(dir, 'gone.v8cache'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(err).toContain(`cannot read the runtime body ${missing} (ENOENT)`);
    expect(err).toContain('npm run build:apps');
    expect(err).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['ES module compiled at start', false, false],
    ['build:apps ES module when fresh', true, false],
    ['code-cached body compiled at start', false, true],
    ['code-cached build:apps body when fresh', true, true],
  ])('%s: serves inline JavaScript on plain node, and file sources in TypeScript through tsx registered before loading', { timeout: 60_000 }, async (_name, reuseAppBundle, codeCache) => {
    const cmd = await runtimeCommand(undefined, { reuseAppBundle, codeCache });
    const js = await start(cmd, [], { ORRERY_SOURCE_INLINE: `export default async () => new Response('js')` });
    expect(await (await fetch(`${js}/`)).text()).toBe('js');

    // Type annotations only load through a TypeScript loader: plain node refuses a .ts file.
    // (`type: module` as in a TS function's package; without it tsx treats .ts as CommonJS, via the tsx bin too.)
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    const dep = join(dir, 'greeting.ts');
    writeFileSync(dep, `export const greeting = (name: string): string => 'ts ' + name;\n`);
    const tsFile = join(dir, 'function.ts');
    writeFileSync(tsFile, `import { greeting } from './greeting.ts';\nexport default async (_req: Request): Promise<Response> => new Response(greeting('fn'));\n`);
    const ts = await start(cmd, ['--source-file', tsFile]);
    expect(await (await fetch(`${ts}/`)).text()).toBe('ts fn');

    // A JavaScript file importing TypeScript beside it: file sources always get the loader.
    const mjs = join(dir, 'function.mjs');
    writeFileSync(mjs, `import { greeting } from './greeting.ts';\nexport default async () => new Response(greeting('mjs'));\n`);
    const mixed = await start(cmd, ['--source-file', mjs]);
    expect(await (await fetch(`${mixed}/`)).text()).toBe('ts mjs');
  });
});

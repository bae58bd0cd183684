import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { runtimeCommand, TSX_RUNTIME_BIN } from './runtime-bundle.ts';

const { bundleStaleness } = (await import(pathToFileURL(join(import.meta.dirname, '..', '..', '..', '..', '..', 'scripts', 'app-launch.mjs')).href)) as {
  bundleStaleness: (app: string) => string | undefined;
};

const dir = mkdtempSync(join(tmpdir(), 'orrery-runtime-bundle-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a deploy-mode worker with the given command and returns its URL. */
async function start(cmd: { command: string; args: string[] }, source: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(cmd.command, [...cmd.args, '--port', '0', '--function', 'f', '--revision', 'f-00001', '--work-dir', join(dir, `w${children.length}`), ...source], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening (http:\/\/\S+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
  });
}

describe('the bundled runtime (plain node)', () => {
  it('is a single JavaScript file, not the tsx bin: compiled at start, or the fresh build:apps bundle', { timeout: 60_000 }, async () => {
    const compiled = await runtimeCommand(undefined, { reuseAppBundle: false });
    expect(compiled.args).toHaveLength(1);
    expect(compiled.args[0]).toMatch(/orrery-runtime-[0-9a-f]{16}\.mjs$/);
    const either = await runtimeCommand();
    expect(either.args).toHaveLength(1);
    expect(either.args[0]).not.toBe(TSX_RUNTIME_BIN);
    const fresh = bundleStaleness('runtime') === undefined;
    expect(either.args[0]).toMatch(fresh ? /apps\/runtime\/dist\/orrery-runtime\.mjs$/ : /orrery-runtime-[0-9a-f]{16}\.mjs$/);
  });

  it.each([['compiled at start', false], ['build:apps bundle when fresh', true]])('%s: serves inline JavaScript on plain node, and file sources in TypeScript through tsx registered before loading', { timeout: 60_000 }, async (_name, reuseAppBundle) => {
    const cmd = await runtimeCommand(undefined, { reuseAppBundle });
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

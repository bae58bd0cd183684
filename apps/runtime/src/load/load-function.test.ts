import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFunction } from './load-function.ts';

let dir: string;
let server: Server;
let base: string;
const served: Record<string, { status: number; body: string }> = {
  '/fn.mjs': { status: 200, body: 'export const handler = async () => new Response("from url");' },
  '/missing.mjs': { status: 404, body: 'nope' },
  '/huge.mjs': { status: 200, body: `export default async () => new Response("${'x'.repeat(5000)}");` },
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-load-'));
  server = createServer((req, res) => {
    const hit = served[new URL(req.url!, 'http://x').pathname] ?? { status: 404, body: '' };
    res.writeHead(hit.status).end(hit.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const call = async (h: (r: Request, c: unknown) => Response | Promise<Response>) => (await h(new Request('http://x/'), {})).text();

describe('loadFunction', () => {
  it('loads a package folder\'s main, whose imports resolve in the package\'s node_modules', async () => {
    const pkg = join(dir, 'built-pkg');
    await mkdir(join(pkg, 'node_modules', 'pad-dep'), { recursive: true });
    await writeFile(join(pkg, 'node_modules', 'pad-dep', 'package.json'), JSON.stringify({ name: 'pad-dep', main: 'index.js' }));
    await writeFile(join(pkg, 'node_modules', 'pad-dep', 'index.js'), 'module.exports = (s) => "[" + s + "]";');
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
    await writeFile(join(pkg, 'handler.mjs'), 'import pad from "pad-dep"; export default () => new Response(pad("ok"));');
    const loaded = await loadFunction({ source: { dir: pkg, main: 'handler.mjs' } }, { workDir: dir });
    expect(loaded.modulePath).toBe(join(pkg, 'handler.mjs'));
    expect(await call(loaded.handler)).toBe('[ok]');
    await expect(loadFunction({ source: { dir: pkg, main: 'absent.mjs' } }, { workDir: dir })).rejects.toMatchObject({ code: 'source_not_found' });
    await expect(loadFunction({ source: { inline: 'x', main: 'a.mjs' } }, { workDir: dir })).rejects.toMatchObject({ code: 'source_invalid' });
  });

  it('loads inline code into a read-only, content-addressed file in the work dir', async () => {
    const code = 'export default async (req) => new Response("inline " + new URL(req.url).pathname);';
    const a = await loadFunction({ source: { inline: code } }, { workDir: dir });
    expect(a.modulePath.startsWith(dir)).toBe(true);
    expect((await stat(a.modulePath)).mode & 0o777).toBe(0o444);
    expect(await call(a.handler)).toBe('inline /');
    const again = await loadFunction({ source: { inline: code } }, { workDir: dir });
    expect(again.modulePath).toBe(a.modulePath);
  });

  it('makes a missing work dir (nested) before it writes inline code there', async () => {
    const workDir = join(dir, 'not', 'yet');
    const a = await loadFunction({ source: { inline: 'export default () => new Response("made");' } }, { workDir });
    expect(a.modulePath.startsWith(workDir)).toBe(true);
    expect((await stat(a.modulePath)).mode & 0o777).toBe(0o444);
    expect(await call(a.handler)).toBe('made');
  });

  it('loads a file path with a named entrypoint', async () => {
    const path = join(dir, 'named.mjs');
    await writeFile(path, 'export async function hello() { return new Response("hello"); }');
    const f = await loadFunction({ source: { file: path }, entrypoint: 'hello' }, { workDir: dir });
    expect(await call(f.handler)).toBe('hello');
    await expect(loadFunction({ source: { file: path } }, { workDir: dir })).rejects.toMatchObject({ code: 'entrypoint_not_found' });
  });

  it('a gRPC- or WebSocket-only module needs no default export: plain requests get a 4xx naming the way in', async () => {
    const grpcOnly = await loadFunction({ source: { inline: "export const grpc = { 'echo.Echo/Say': { unary: (m) => m } };" } }, { workDir: dir });
    expect(grpcOnly.grpc?.size).toBe(1);
    const r1 = await grpcOnly.handler(new Request('http://x/'), {});
    expect([r1.status, ((await r1.json()) as { code: string }).code]).toEqual([415, 'not_grpc']);
    const wsOnly = await loadFunction({ source: { inline: 'export function websocket(socket) { socket.close(); }' } }, { workDir: dir });
    const r2 = await wsOnly.handler(new Request('http://x/'), {});
    expect([r2.status, r2.headers.get('upgrade'), ((await r2.json()) as { error: string }).error]).toEqual([426, 'websocket', expect.stringContaining('WebSocket handshake')]);
    // A named entrypoint that is missing is still an error, as is a module with nothing to serve.
    await expect(loadFunction({ source: { inline: "export const grpc = { 'a.B/C': { unary: (m) => m } };" }, entrypoint: 'handler' }, { workDir: dir })).rejects.toMatchObject({ code: 'entrypoint_not_found' });
    await expect(loadFunction({ source: { inline: 'export const x = 1;' } }, { workDir: dir })).rejects.toMatchObject({ code: 'entrypoint_not_found' });
  });

  it('loads from a URL and refuses bad status, oversize and non-http URLs', async () => {
    const f = await loadFunction({ source: { url: `${base}/fn.mjs?sig=secret` }, entrypoint: 'handler' }, { workDir: dir });
    expect(await call(f.handler)).toBe('from url');
    const missing = loadFunction({ source: { url: `${base}/missing.mjs?sig=secret` } }, { workDir: dir });
    await expect(missing).rejects.toMatchObject({ code: 'source_fetch_failed', message: expect.stringContaining('HTTP 404') });
    await expect(missing).rejects.not.toMatchObject({ message: expect.stringContaining('secret') });
    await expect(loadFunction({ source: { url: `${base}/huge.mjs` } }, { workDir: dir, maxBytes: 1000 })).rejects.toMatchObject({ code: 'source_too_large' });
    await expect(loadFunction({ source: { url: 'file:///etc/passwd' } }, { workDir: dir })).rejects.toMatchObject({ code: 'source_invalid' });
  });

  it('says what is wrong with the source itself', async () => {
    await expect(loadFunction({ source: {} }, { workDir: dir })).rejects.toMatchObject({ code: 'source_invalid' });
    await expect(loadFunction({ source: { inline: 'x', file: '/a' } }, { workDir: dir })).rejects.toMatchObject({ code: 'source_invalid' });
    await expect(loadFunction({ source: { file: join(dir, 'absent.mjs') } }, { workDir: dir })).rejects.toMatchObject({ code: 'source_not_found' });
    await expect(loadFunction({ source: { inline: 'export default (' } }, { workDir: dir })).rejects.toMatchObject({ code: 'module_load_failed' });
    await expect(loadFunction({ source: { inline: 'x'.repeat(20) } }, { workDir: dir, maxBytes: 10 })).rejects.toMatchObject({ code: 'source_too_large' });
  });
});

/**
 * `orrery apply|get|delete|invoke|logs` as a user runs them: the real `orrery` binary against a
 * real store (embedded PGlite behind the store's HTTP surface, as the operator serves it), a
 * real HTTP server standing in for the router, and log files laid out as the operator writes them.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@orrery/db';
import { createLocalStore, createStoreHandler, type ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const EXAMPLES = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
const TOKEN = 'cli-store-token-for-tests';
const cwd = mkdtempSync(join(tmpdir(), 'orrery-cli-res-'));
let local: ResourceStore;
let conn: ReturnType<typeof connect>;
let storeServer: Server;
let storeUrl = '';

function orrery(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ORRERY_STORE_URL: storeUrl, ORRERY_STORE_TOKEN: TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/**
 * The same command in this process (no tsx start-up per call: the binary is exercised by the
 * calls above that spawn it), with console and stdout captured.
 */
async function orreryIn(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const [name, ...rest] = args;
  const saved = { ...process.env };
  Object.assign(process.env, { ORRERY_STORE_URL: storeUrl, ORRERY_STORE_TOKEN: TOKEN }, env);
  let out = '';
  let err = '';
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out += `${a.join(' ')}\n`));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void (err += `${a.join(' ')}\n`));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()), true));
  try {
    const command = (await import(join(import.meta.dirname, '..', 'commands', `${name}.ts`))) as { run(argv: string[]): Promise<number> };
    return { code: await command.run(rest), out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
    process.env = saved;
  }
}

beforeAll(async () => {
  conn = connect({ url: '' });
  local = await createLocalStore(conn);
  const handle = createStoreHandler(local, { token: TOKEN });
  storeServer = createServer((req, res) => void handle(req, res).then((ok) => ok || res.writeHead(404).end()));
  await new Promise<void>((r) => storeServer.listen(0, '127.0.0.1', r));
  storeUrl = `http://127.0.0.1:${(storeServer.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  storeServer?.closeAllConnections();
  await new Promise((r) => storeServer?.close(r));
  await local?.close();
  await conn?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('orrery apply / get / delete through the store', () => {
  it('apply reports created, unchanged, configured; invalid manifests apply nothing', { timeout: 60_000 }, async () => {
    const counter = join(EXAMPLES, 'counter', 'function.yaml');
    expect(await orrery(['apply', '-f', counter])).toMatchObject({ code: 0, out: 'function.orrery.dev/counter created\n' });
    expect(await orreryIn(['apply', '-f', counter])).toMatchObject({ code: 0, out: 'function.orrery.dev/counter unchanged\n' });
    const edited = join(cwd, 'counter.yaml');
    writeFileSync(edited, readFileSync(counter, 'utf8').replace('containerConcurrency: 0', 'containerConcurrency: 2'));
    expect(await orreryIn(['apply', '-f', edited])).toMatchObject({ code: 0, out: 'function.orrery.dev/counter configured\n' });
    expect((await local.get('Function', 'default', 'counter'))?.metadata.generation).toBe(2);

    const bad = await orreryIn(['apply', '-f', join(EXAMPLES, 'invalid', 'keyspace.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('nothing applied');
    expect((await local.list('Function')).items).toHaveLength(1);
  });

  it('get prints a table, YAML or JSON; unknown kinds are usage errors', { timeout: 60_000 }, async () => {
    const table = await orrery(['get', 'functions']);
    expect(table.code).toBe(0);
    const [header, row] = table.out.trimEnd().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'READY', 'LATEST', 'URL', 'TRAFFIC', 'AGE']);
    expect(row!.split(/\s+/)).toEqual(['counter', 'Unknown', '<none>', '<none>', 'latest=100%', expect.stringMatching(/^\d+[sm]$/)]);
    const json = await orreryIn(['get', 'function', 'counter', '-o', 'json']);
    expect((JSON.parse(json.out) as { spec: { state: { keyspace: string } } }).spec.state.keyspace).toBe('counter');
    expect((await orreryIn(['get', 'fn', '-o', 'yaml'])).out).toMatch(/^kind: List\n[\s\S]*name: counter/m);
    expect((await orreryIn(['get', 'pods'])).code).toBe(2);
    const missing = await orreryIn(['get', 'function', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('"nope" not found');
  });

  it('delete removes by name or by manifest; a missing object fails unless --ignore-not-found', { timeout: 60_000 }, async () => {
    expect(await orreryIn(['delete', 'function', 'counter'])).toMatchObject({ code: 0, out: 'function.orrery.dev/counter deleted\n' });
    expect((await orreryIn(['delete', 'function', 'counter'])).code).toBe(1);
    expect((await orreryIn(['delete', '-f', join(EXAMPLES, 'counter', 'function.yaml'), '--ignore-not-found'])).code).toBe(0);
    expect((await local.list('Function')).items).toEqual([]);
  });

  it('an unreachable store is one clear line, not a stack trace', { timeout: 30_000 }, async () => {
    const r = await orreryIn(['get', 'functions'], { ORRERY_STORE_URL: 'http://127.0.0.1:9' });
    expect(r.code).toBe(1);
    expect(r.err).toContain('orrery up');
    expect(r.err).not.toContain('    at ');
  });
});

describe('orrery invoke', () => {
  let router: Server;
  let routerUrl = '';
  const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    router = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url?.startsWith('/default/broken')) res.writeHead(500).end('boom');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((r) => router.listen(0, '127.0.0.1', r));
    routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => router.close(r)));

  it('sends data, headers and the tag to <router>/<namespace>/<function><path> and prints the body', { timeout: 30_000 }, async () => {
    const r = await orrery(['invoke', 'counter', '-n', 'shop', '--data', '{"n":1}', '--header', 'X-Trace: t1', '--tag', 'old', '--path', '/inc?key=a'], { ORRERY_ROUTER_URL: routerUrl });
    expect(r).toMatchObject({ code: 0, out: '{"ok":true}' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/shop/counter/inc?key=a', body: '{"n":1}', headers: { 'x-trace': 't1', 'orrery-tag': 'old', 'content-type': 'application/json' } });
    const failed = await orreryIn(['invoke', 'broken', '--router-url', routerUrl]);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('500');
  });
});

describe('orrery logs', () => {
  it('prints every worker log of a function, filters by revision, and follows with -f', { timeout: 60_000 }, async () => {
    const dataDir = join(cwd, 'data');
    const dir = join(dataDir, 'logs', 'default', 'counter');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'counter-00001-1.log'), 'first worker\n');
    writeFileSync(join(dir, 'counter-00002-2.log'), 'second worker\n');
    expect((await orreryIn(['logs', 'counter', '--data-dir', dataDir])).out).toBe('[counter-00001-1] first worker\n[counter-00002-2] second worker\n');
    expect((await orreryIn(['logs', 'counter', '--revision', 'counter-00002'], { ORRERY_DATA_DIR: dataDir })).out).toBe('[counter-00002-2] second worker\n');
    expect((await orreryIn(['logs', 'ghost', '--data-dir', dataDir])).code).toBe(1);

    const child = spawn(process.execPath, [CLI, 'logs', 'counter', '-f', '--revision', 'counter-00002', '--data-dir', dataDir, '--poll-ms', '100'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = async (text: string) => {
      const end = Date.now() + 20_000;
      while (!out.includes(text)) {
        if (Date.now() > end) throw new Error(`"${text}" not followed; got ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor('second worker');
      appendFileSync(join(dir, 'counter-00002-2.log'), 'appended later\n');
      writeFileSync(join(dir, 'counter-00002-3.log'), 'a restarted worker\n');
      appendFileSync(join(dir, 'counter-00001-1.log'), 'other revision\n');
      await waitFor('[counter-00002-3] a restarted worker');
      await waitFor('[counter-00002-2] appended later');
      const code = await new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      });
      expect(code).toBe(0);
      expect(out).not.toContain('other revision');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/**
 * Each server image's /app without Docker: `scripts/build-apps.mjs --image-root DIR app` lays out
 * what the Dockerfile's build stage hands to the runtime stage; the app then starts from that
 * folder alone (no node_modules above it), so a package the bundle needs and the image lacks, or
 * a file the code reads and the image leaves out, fails here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './chart-files.ts';

const work = mkdtempSync(join(tmpdir(), 'orrery-images-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function layOut(app: string): string {
  const root = join(work, app);
  const r = spawnSync(process.execPath, ['scripts/build-apps.mjs', '--image-root', root, app], { cwd: repoRoot, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return root;
}

/** Top-level packages of the image's node_modules (`@scope/name` for scoped ones). */
function packages(root: string): string[] {
  const nm = join(root, 'node_modules');
  if (!existsSync(nm)) return [];
  return readdirSync(nm).flatMap((n) => (n.startsWith('@') ? readdirSync(join(nm, n)).map((s) => `${n}/${s}`) : [n])).sort();
}

/** Starts `node apps/<app>/dist/orrery-<app>.mjs` in the image folder; resolves with its first URL. */
function start(root: string, app: string, args: string[], env: Record<string, string> = {}): Promise<{ url: string; stop: () => Promise<void> }> {
  return startCommand(root, [`apps/${app}/dist/orrery-${app}.mjs`], args, env);
}

/** The exec-form ENTRYPOINT of apps/<app>/Dockerfile. */
function dockerfileEntrypoint(app: string): string[] {
  const line = readFileSync(join(repoRoot, 'apps', app, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('ENTRYPOINT '));
  return JSON.parse(line!.slice('ENTRYPOINT '.length)) as string[];
}

/**
 * Starts `node <args…> <extra…>` in the image folder; resolves with its first URL and a reader of
 * its "worker ready" log record.
 */
async function startCommand(root: string, args: string[], extra: string[], env: Record<string, string> = {}): Promise<{ url: string; workerReady: () => unknown; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...args, ...extra], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)));
  });
  const workerReady = () => {
    const line = stderr.split('\n').find((l) => l.includes('"worker ready"'));
    return line === undefined ? undefined : (JSON.parse(line) as unknown);
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, workerReady, stop };
}

function help(root: string, app: string): string {
  const r = spawnSync(process.execPath, [`apps/${app}/dist/orrery-${app}.mjs`, '--help'], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('server images, laid out as the Dockerfiles build them', { timeout: 180_000 }, () => {
  it('the folders they are laid out in have no node_modules above them', () => {
    for (let d = work; d !== dirname(d); d = dirname(d)) expect(existsSync(join(dirname(d), 'node_modules')), dirname(d)).toBe(false);
  });

  it('operator: PGlite and etcd3 with gRPC, no tsx; starts the embedded store from the image alone (migrations included)', async () => {
    const root = layOut('operator');
    const pkgs = packages(root);
    expect(pkgs).toEqual(expect.arrayContaining(['@electric-sql/pglite', 'etcd3', '@grpc/grpc-js']));
    expect(pkgs).not.toContain('tsx');
    expect(pkgs).not.toContain('esbuild');
    // No pool workers: the local backend's workers are not part of this image (it runs --backend=kubernetes).
    const op = await start(root, 'operator', ['--port', '0', '--data-dir', join(root, 'data'), '--pool-size', '0']);
    try {
      expect((await fetch(`${op.url}/healthz`)).status).toBe(200);
    } finally {
      await op.stop();
    }
  });

  it('router: no node_modules at all (no tsx, no PGlite, no etcd client)', () => {
    const root = layOut('router');
    expect(packages(root)).toEqual([]);
    expect(help(root, 'router')).toMatch(/^usage: orrery-router/);
  });

  it('statesvc: no node_modules; serves /healthz with the memory driver', async () => {
    const root = layOut('statesvc');
    expect(packages(root)).toEqual([]);
    expect(existsSync(join(root, 'packages', 'db', 'drizzle'))).toBe(true);
    const sv = await start(root, 'statesvc', ['--port', '0', '--driver', 'memory', '--insecure-pass-through']);
    try {
      expect((await fetch(`${sv.url}/healthz`)).status).toBe(200);
    } finally {
      await sv.stop();
    }
  });

  it('registry: etcd3 with gRPC (loaded at start: its .proto files), no tsx, no PGlite', () => {
    const root = layOut('registry');
    const pkgs = packages(root);
    expect(pkgs).toEqual(expect.arrayContaining(['etcd3', '@grpc/grpc-js', 'protobufjs']));
    expect(pkgs).not.toContain('tsx');
    expect(pkgs).not.toContain('@electric-sql/pglite');
    expect(help(root, 'registry')).toMatch(/^usage: orrery-registry/);
  });

  it('cli: etcd3 with gRPC only; --version, and a clear error when no platform answers', () => {
    const root = layOut('cli');
    const pkgs = packages(root);
    expect(pkgs).toEqual(expect.arrayContaining(['etcd3', '@grpc/grpc-js']));
    expect(pkgs).not.toContain('tsx');
    expect(pkgs).not.toContain('@electric-sql/pglite');
    const run = (args: string[]) => spawnSync(process.execPath, ['apps/cli/dist/orrery-cli.mjs', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ORRERY_API_URL: 'http://127.0.0.1:9', KUBECONFIG: '' } });
    expect(run(['--version']).stdout).toMatch(/^orrery \d+\.\d+\.\d+/);
    const get = run(['get', 'functions']);
    expect(get.status).toBe(1);
    expect(get.stderr).toMatch(/unreachable/);
  });

  it('runtime: tsx only for function code; the ENTRYPOINT starts workers through the code cache made at build; serves inline JavaScript and a TypeScript file', async () => {
    const root = layOut('runtime');
    const pkgs = packages(root);
    expect(pkgs).toContain('tsx');
    expect(pkgs).not.toContain('@electric-sql/pglite');
    expect(pkgs).not.toContain('etcd3');
    // What the image runs: its Dockerfile's ENTRYPOINT (exec form), from the image folder alone.
    const entrypoint = dockerfileEntrypoint('runtime');
    expect(entrypoint.slice(0, 2)).toEqual(['node', 'apps/runtime/boot/code-cached-boot.mjs']);
    for (const file of entrypoint.slice(1)) expect(existsSync(join(root, file)), file).toBe(true);
    const inline = await startCommand(root, entrypoint.slice(1), ['--port', '0', '--function', 'f', '--revision', 'f-00001', '--work-dir', join(root, 'w1')], {
      ORRERY_SOURCE_INLINE: "export default async () => new Response('inline ok');",
    });
    try {
      expect(await (await fetch(`${inline.url}/`)).text()).toBe('inline ok');
      // The cache build-apps made with this node: V8 takes it (a rejected or missing one only costs the compile).
      expect(inline.workerReady()).toMatchObject({ codeCache: 'used' });
    } finally {
      await inline.stop();
    }
    // The ES module bundle the ENTRYPOINT used to name still runs alone.
    const plain = await start(root, 'runtime', ['--port', '0', '--function', 'p', '--revision', 'p-00001', '--work-dir', join(root, 'w0')], {
      ORRERY_SOURCE_INLINE: "export default async () => new Response('plain ok');",
    });
    try {
      expect(await (await fetch(`${plain.url}/`)).text()).toBe('plain ok');
    } finally {
      await plain.stop();
    }
    const fn = join(work, 'fn');
    mkdirSync(fn, { recursive: true });
    writeFileSync(join(fn, 'package.json'), '{"type":"module"}');
    writeFileSync(join(fn, 'handler.ts'), "const word: string = 'typescript ok';\nexport default async (): Promise<Response> => new Response(word);\n");
    const ts = await startCommand(root, entrypoint.slice(1), ['--port', '0', '--function', 'g', '--revision', 'g-00001', '--work-dir', join(root, 'w2'), '--source-file', join(fn, 'handler.ts')]);
    try {
      expect(await (await fetch(`${ts.url}/`)).text()).toBe('typescript ok');
    } finally {
      await ts.stop();
    }
  });

  it('runtime: the OpenTelemetry SDK is carried beside the bundle, not in it, and loads when tracing is on', async () => {
    const root = layOut('runtime');
    expect(packages(root)).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@opentelemetry/semantic-conventions']));
    expect(readFileSync(join(root, 'apps', 'runtime', 'dist', 'orrery-runtime.mjs'), 'utf8')).not.toMatch(/class BatchSpanProcessorBase/);
    // A collector: the worker's spans arrive as OTLP/HTTP JSON.
    const spans: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') spans.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const traced = await start(root, 'runtime', ['--port', '0', '--function', 'h', '--revision', 'h-00001', '--work-dir', join(root, 'w3')], {
      ORRERY_SOURCE_INLINE: "export default async () => new Response('traced ok');",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      expect(await (await fetch(`${traced.url}/`)).text()).toBe('traced ok');
      const deadline = Date.now() + 15_000;
      while (spans.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(spans.join('')).toContain('orrery-runtime');
    } finally {
      await traced.stop();
      await new Promise((r) => collector.close(r));
    }
  });
});

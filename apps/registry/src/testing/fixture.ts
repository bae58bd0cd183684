/**
 * Test-side plumbing for the integration tests and the benchmark: registries in-process or as
 * child processes, JSON calls, and an SSE reader. Not used by the server itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential } from '@orrery/auth';
import { waitFor } from '@orrery/etcdcluster';
import { loadConfig, type RegistryConfig } from '../config.ts';
import { startRegistry, type RunningRegistry, type StartOptions } from '../server.ts';
import type { Envelope } from '../http/envelope.ts';

export const TOKENS = { admin: 'admin-token-for-tests', replication: 'replication-token-for-tests', sd: 'sd-token-for-tests' };

/** The registry master key test registries run with (so Orrery worker names can be registered). */
export const TEST_REGISTRY_MASTER_KEY = Buffer.alloc(32, 0x5a);
let masterKeyFile: string | undefined;

/**
 * A file holding TEST_REGISTRY_MASTER_KEY as hex. One folder per user, shared by every test
 * process and kept between runs: vitest ends its worker processes without an 'exit' event, so a
 * folder per process was never removed (dozens per CI run). The folder must be ours, a real
 * directory and private (another user could have made the predictable path first); the file is
 * written whole and renamed into place, so processes starting together never read half of it.
 */
export function testMasterKeyFile(): string {
  if (masterKeyFile) return masterKeyFile;
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `orrery-registry-test-key-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) throw new Error(`${dir} is not a private directory of this user: remove it`);
  const file = join(dir, 'registry-master.key');
  const hex = TEST_REGISTRY_MASTER_KEY.toString('hex');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== hex) {
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, hex, { mode: 0o600 });
    renameSync(tmp, file);
  }
  masterKeyFile = file;
  return file;
}

/** `Authorization` header with the registration credential for one revision's service. */
export function credentialHeader(namespace: string, service: string, key: Buffer = TEST_REGISTRY_MASTER_KEY): Record<string, string> {
  return { authorization: `Bearer ${deriveRegistrationCredential(key, namespace, service)}` };
}

export function registryArgs(endpoints: string[], extra: string[] = []): string[] {
  return [
    '--http-addr', '127.0.0.1:0',
    '--admin-addr', '127.0.0.1:0',
    '--etcd-endpoints', endpoints.join(','),
    '--admin-token', TOKENS.admin,
    '--replication-token', TOKENS.replication,
    '--prometheus-sd-token', TOKENS.sd,
    '--request-timeout', '4s',
    '--shutdown-timeout', '10s',
    '--region', 'test',
    '--cluster-id', 'test',
    // `extra` may give these again: the last one wins.
    '--registry-cleanup-interval', '30s',
    '--registry-cleanup-delete-limit', '128',
    '--registry-master-key-file', testMasterKeyFile(),
    ...extra,
  ];
}

export function testConfig(endpoints: string[], extra: string[] = []): RegistryConfig {
  const r = loadConfig(registryArgs(endpoints, extra), {});
  if (r.ok !== true) throw new Error(r.ok === false ? r.message : 'help');
  return r.config;
}

export function startTestRegistry(endpoints: string[], extra: string[] = [], opts: StartOptions = {}): Promise<RunningRegistry> {
  return startRegistry(testConfig(endpoints, extra), opts);
}

/** The real binary as a child process (for restart and kill tests). */
export interface RegistryProcess {
  child: ChildProcess;
  httpUrl: string;
  adminUrl: string;
  /** Everything it wrote to stderr so far (start-up warnings, shutdown lines). */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const BIN = join(dirname(fileURLToPath(import.meta.url)), '../../bin/orrery-registry.mjs');

/** `nodeArgs` go to node itself (e.g. `--cpu-prof`, which NODE_OPTIONS does not allow). */
export async function spawnRegistry(endpoints: string[], extra: string[] = [], nodeArgs: string[] = []): Promise<RegistryProcess> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...registryArgs(endpoints, extra)], { stdio: ['ignore', 'pipe', 'pipe'] });
  process.once('exit', () => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`registry did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening (\S+) admin (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`registry exited with ${code}: ${stderr}`));
    });
  });
  const [, httpUrl, adminUrl] = /listening (\S+) admin (\S+)/.exec(line)!;
  return {
    child,
    httpUrl: httpUrl!,
    adminUrl: adminUrl!,
    stderr: () => stderr,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Response bodies in tests are checked by assertions, not by types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export interface CallResult<T = Loose> {
  status: number;
  body: Envelope<T>;
}

export async function call<T = Loose>(base: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<CallResult<T>> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: Envelope<T>;
  try {
    parsed = JSON.parse(text) as Envelope<T>;
  } catch {
    parsed = { code: 'ok', message: text, data: text as T, requestId: '' };
  }
  return { status: res.status, body: parsed };
}

export const admin = (r: { adminUrl: string }, method: 'GET' | 'POST', path: string, body?: unknown) =>
  call(r.adminUrl, method, path, body, { authorization: `Bearer ${TOKENS.admin}` }, 30_000);

export interface SseEvent {
  event: string;
  id?: string;
  data: Loose;
}

/** A minimal SSE reader: collects events, lets tests wait for a condition. */
export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  status = 0;
  body = '';
  private req?: ClientRequest;
  private res?: IncomingMessage;
  ended = false;
  /** Response headers (e.g. `retry-after` on a refused watch). */
  headers: Record<string, string | string[] | undefined> = {};

  /** `localAddress` picks the source address (e.g. 127.0.0.2), so one machine can act as several clients. */
  static open(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<SseClient> {
    const c = new SseClient();
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, ...(localAddress ? { localAddress } : {}) }, (res) => {
        c.res = res;
        c.status = res.statusCode ?? 0;
        c.headers = res.headers;
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          if (c.status !== 200) {
            c.body += chunk;
            return;
          }
          buf += chunk;
          let idx;
          while ((idx = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, idx);
            buf = buf.slice(idx + 2);
            c.parse(frame);
          }
        });
        res.on('end', () => {
          c.ended = true;
        });
        res.on('error', () => {
          c.ended = true;
        });
        if (c.status === 200) resolve(c);
        else res.on('end', () => resolve(c));
      });
      req.on('error', reject);
      req.end();
      c.req = req;
    });
  }

  private parse(frame: string): void {
    if (frame.startsWith(':')) {
      this.comments++;
      return;
    }
    const ev: SseEvent = { event: 'message', data: undefined };
    for (const line of frame.split('\n')) {
      const i = line.indexOf(':');
      const k = line.slice(0, i);
      const v = line.slice(i + 1).trimStart();
      if (k === 'event') ev.event = v;
      else if (k === 'id') ev.id = v;
      else if (k === 'data') ev.data = JSON.parse(v);
    }
    this.events.push(ev);
  }

  waitFor(what: string, pred: (events: SseEvent[]) => boolean, timeoutMs = 20_000): Promise<true> {
    return waitFor(what, timeoutMs, async () => (pred(this.events) ? true : undefined), () => JSON.stringify(this.events.slice(-5)), 25);
  }

  close(): void {
    this.req?.destroy();
    this.res?.destroy();
  }
}

/** A registration body for tests: service company.test.<app>.svc.api unless given. */
export function regBody(namespace: string, instanceId: string, over: Record<string, unknown> = {}) {
  return {
    namespace,
    service: 'company.test.order.order-center.api',
    instanceId,
    zone: 'az1',
    labels: { color: 'gray', version: 'v2' },
    endpoints: [
      { protocol: 'http', host: '10.0.0.1', port: 8080 },
      { name: 'metrics', protocol: 'http', host: '10.0.0.1', port: 9090, path: '/metrics' },
    ],
    leaseTtlSeconds: 60,
    ...over,
  };
}

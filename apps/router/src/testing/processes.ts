/**
 * Integration-test plumbing: real child processes (test upstreams, orrery-router replicas),
 * temp route/endpoint files, and polling helpers. Every process started is killed in `stopAll`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StatsView } from '../stats/router-stats.ts';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const UPSTREAM = join(appDir, 'fixtures', 'upstream.mjs');
const ROUTER_BIN = join(appDir, 'bin', 'orrery-router.mjs');

export interface Started {
  child: ChildProcess;
  output: () => string;
}

export class ProcessGroup {
  private readonly children: ChildProcess[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), 'orrery-router-int-'));

  start(args: string[], pattern: RegExp, what: string, env?: Record<string, string>): Promise<{ match: RegExpMatchArray } & Started> {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env });
    this.children.push(child);
    let out = '';
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} did not print ${pattern} within 30 s:\n${out}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = pattern.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve({ match: m, child, output: () => out });
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited with ${code}:\n${out}`));
      });
    });
  }

  async upstream(name: string, opts: { exclusive?: boolean } = {}): Promise<{ address: string; child: ChildProcess }> {
    const args = [UPSTREAM, '--name', name];
    if (opts.exclusive) args.push('--exclusive');
    const s = await this.start(args, /listening http:\/\/(127\.0\.0\.1:\d+)/, `upstream ${name}`);
    return { address: s.match[1]!, child: s.child };
  }

  /** `env` adds to this process's environment (e.g. the StateSync settings a Deployment would carry). */
  async router(args: string[], env?: Record<string, string>): Promise<{ url: string; admin: string } & Started> {
    const s = await this.start([ROUTER_BIN, '--port', '0', '--admin-port', '0', ...args], /listening (http:\/\/\S+) admin (http:\/\/\S+)/, 'orrery-router', env);
    return { url: s.match[1]!, admin: s.match[2]!, child: s.child, output: s.output };
  }

  /** Atomic replace, so the router's poll never reads half a file. */
  write(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
    return path;
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const t = setTimeout(() => c.kill('SIGKILL'), 5_000);
            c.once('exit', () => {
              clearTimeout(t);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function eventually<T>(f: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function functionYaml(o: {
  name: string;
  namespace?: string;
  traffic?: string;
  sticky?: string;
  containerConcurrency?: number;
  timeoutSeconds?: number;
  onWorkerLoss?: 'fail' | 'replay';
  revisions: string[];
}): string {
  const ns = o.namespace ?? 'default';
  const template = `{source: {inline: "x"}, containerConcurrency: ${o.containerConcurrency ?? 0}, timeoutSeconds: ${o.timeoutSeconds ?? 30}${o.onWorkerLoss ? `, onWorkerLoss: ${o.onWorkerLoss}` : ''}}`;
  let y = `---\napiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata: {name: ${o.name}, namespace: ${ns}}\nspec:\n  template: ${template}\n`;
  if (o.traffic) y += `  traffic: ${o.traffic}\n`;
  if (o.sticky) y += `  state: {sticky: ${o.sticky}}\n`;
  for (const r of o.revisions) y += `---\napiVersion: orrery.dev/v1alpha1\nkind: Revision\nmetadata: {name: ${r}, namespace: ${ns}}\nspec: {function: ${o.name}, template: ${template}}\n`;
  return y;
}

export function endpointsYaml(list: Array<{ fn: string; rev: string; address: string; namespace?: string; ready?: boolean }>): string {
  return list.length === 0 ? '[]\n' : list.map((e) => `- {namespace: ${e.namespace ?? 'default'}, function: ${e.fn}, revision: ${e.rev}, address: "${e.address}", ready: ${e.ready ?? true}}`).join('\n') + '\n';
}

/** What `GET /v1/stats` answers (admin port). */
export type RouterStatsJson = StatsView & {
  routerId: string;
  endpoints: Array<{ revision: string; address: string; ready: boolean; inflight: number }>;
  quarantined: Array<{ address: string; untilMs: number }>;
  dialErrors: number;
  upstreamRetries: number;
  upstreamReplays: number;
  statesync?: { syncables: Array<{ syncable: string; entitiesPulledTotal: number }> };
  registry?: Array<{ namespace: string; connected: boolean; revision: number | undefined; resyncs: number; reconnects: number }>;
};
export type FunctionStatsJson = RouterStatsJson['functions'][number];

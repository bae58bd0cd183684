/**
 * The `orrery-registry` API process beside a cluster's etcd members. Tokens go in through the
 * environment (not argv, which `ps` shows). When the member set changes it is restarted with the
 * new endpoint list, so it never keeps talking to removed members only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegistryTokens } from './registry-api-tokens.ts';
import { registryAuthArgs, type RegistryApiAuth } from '../../registry-cluster/registry-auth-args.ts';
import { registrySettingsArgs } from '../../registry-cluster/registry-settings-args.ts';

export const REGISTRY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'registry', 'bin', 'orrery-registry.mjs');

export interface RegistryApiOptions {
  command?: { command: string; args: string[] };
  /** `namespace/name` of the RegistryCluster (the registry's `cluster_id`). */
  clusterId: string;
  cleanupInterval: string;
  cleanupDeleteLimit: number;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** Port of the registry API (0 = any free one); restarts keep the port first bound, so the URL is stable. */
  port?: number;
  /** Write credentials: registry master key and write tokens files. */
  auth?: RegistryApiAuth;
}

/** The registry's flags (tokens go through the environment): everything the binary requires. */
export function registryApiArgs(o: RegistryApiOptions, endpoints: string, port: number, adminPort: number): string[] {
  return ['--port', String(port), '--admin-port', String(adminPort), '--etcd-endpoints', endpoints, ...registrySettingsArgs(o), ...registryAuthArgs(o.auth)];
}

export class RegistryApiProcess {
  private child?: ChildProcess;
  private endpointsKey = '';
  private boundPort?: number;
  private boundAdminPort?: number;
  url?: string;
  adminUrl?: string;

  constructor(private readonly o: RegistryApiOptions) {}

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts it, or restarts it when the endpoint list differs from the one it runs with. */
  async ensure(endpoints: string[], tokens: RegistryTokens): Promise<void> {
    const key = [...endpoints].sort().join(',');
    if (this.running() && key === this.endpointsKey) return;
    await this.stop();
    this.endpointsKey = key;
    const cmd = this.o.command ?? { command: process.execPath, args: [REGISTRY_BIN] };
    const child = spawn(
      cmd.command,
      [...cmd.args, ...registryApiArgs(this.o, key, this.boundPort ?? this.o.port ?? 0, this.boundAdminPort ?? 0)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ORRERY_REGISTRY_ADMIN_TOKEN: tokens.adminToken,
          ORRERY_REGISTRY_REPLICATION_TOKEN: tokens.replicationToken,
          ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: tokens.prometheusSdToken,
        },
      },
    );
    this.child = child;
    this.url = undefined;
    this.adminUrl = undefined;
    child.stderr?.resume();
    child.once('exit', (code, signal) => this.o.log('registry api exited', { code, signal }));
    await new Promise<void>((resolve) => {
      let buf = '';
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => {
        buf += chunk;
        const m = /listening (\S+) admin (\S+)/.exec(buf);
        if (m && !this.url) {
          this.url = m[1];
          this.adminUrl = m[2];
          this.boundPort = Number(new URL(m[1]!).port);
          this.boundAdminPort = Number(new URL(m[2]!).port);
          resolve();
        }
      });
      child.once('exit', () => resolve());
      // Never block the reconcile loop for long; the next pass sees whether it came up.
      setTimeout(resolve, 30_000).unref();
    });
    if (this.url) this.o.log('registry api listening', { url: this.url, endpoints: key });
    else {
      // The remembered port may be taken now: let the next try pick (or retry the configured one).
      this.boundPort = undefined;
      this.boundAdminPort = undefined;
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
}

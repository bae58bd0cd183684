/**
 * The router replicas of the local backend, as child processes the StateSync reconciler can
 * reconfigure: new sync settings = a rolling restart (one replica at a time, each waits for its
 * `listening` line) with the rendered `--redis-*` flags and `ORRERY_REDIS_URL` (in the environment:
 * it may hold a password, and command lines are public). The router reads its sync settings only
 * at start, so a restart is the honest way to apply them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STATESYNC_ENV } from '@orrery/spec';
import type { RouterLaunch } from '../../state-sync/render-settings.ts';

export const ROUTER_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'router', 'bin', 'orrery-router.mjs');

export interface RouterReplica {
  name: string;
  adminUrl?: string;
  url?: string;
}

/** What the StateSync reconciler needs from the target component's replicas. */
export interface ReplicaSet {
  replicas(): RouterReplica[];
  /** Applies rendered flags and environment (undefined = no StateSync: run without Redis). Resolves when rolled out. */
  configure(sync: RouterLaunch | undefined, fingerprint: string): Promise<void>;
  fingerprint(): string | undefined;
  stop(): Promise<void>;
  /** True when the replicas run outside this operator (settings are rendered, not applied). */
  readonly external?: boolean;
}

export interface LocalRouterFleetOptions {
  count: number;
  /** Flags every router gets (routing source, endpoints file); read at each (re)start. */
  baseArgs: string[] | (() => string[]);
  /** Environment every router gets besides the operator's own (e.g. the store token's file). */
  env?: Record<string, string>;
  command?: { command: string; args: string[] };
  namePrefix?: string;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

interface Slot extends RouterReplica {
  child?: ChildProcess;
}

export class LocalRouterFleet implements ReplicaSet {
  private readonly slots: Slot[];
  private applied?: string;

  constructor(private readonly o: LocalRouterFleetOptions) {
    this.slots = Array.from({ length: o.count }, (_, i) => ({ name: `${o.namePrefix ?? 'router'}-${i + 1}` }));
  }

  replicas(): RouterReplica[] {
    return this.slots.map(({ name, adminUrl, url }) => ({ name, adminUrl, url }));
  }

  fingerprint(): string | undefined {
    return this.applied;
  }

  pids(): number[] {
    return this.slots.map((s) => s.child?.pid).filter((p): p is number => p !== undefined);
  }

  async configure(sync: RouterLaunch | undefined, fingerprint: string): Promise<void> {
    for (const slot of this.slots) {
      await this.stopSlot(slot);
      await this.startSlot(slot, sync ?? { args: [], env: {} });
    }
    this.applied = fingerprint;
  }

  private async startSlot(slot: Slot, sync: RouterLaunch): Promise<void> {
    const cmd = this.o.command ?? { command: process.execPath, args: [ROUTER_BIN] };
    const base = typeof this.o.baseArgs === 'function' ? this.o.baseArgs() : this.o.baseArgs;
    const args = [...cmd.args, '--port', '0', '--admin-port', '0', '--router-id', slot.name, ...base, ...sync.args];
    // An earlier setting must not linger in the inherited environment when the StateSync is gone.
    const { [STATESYNC_ENV.url]: _old, ...inherited } = { ...process.env, ...(this.o.env ?? {}) };
    const child = spawn(cmd.command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inherited, ...sync.env } });
    slot.child = child;
    let out = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (c: string) => (out = (out + c).slice(-4000)));
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`router ${slot.name} did not start within 60 s: ${out}`)), 60_000);
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (c: string) => {
        buf += c;
        const m = /listening (\S+) admin (\S+)/.exec(buf);
        if (m) {
          clearTimeout(timer);
          slot.url = m[1];
          slot.adminUrl = m[2];
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`router ${slot.name} exited with ${code}: ${out.split('\n').slice(-3).join(' | ')}`));
      });
    });
    this.o.log?.('router replica started', { replica: slot.name, pid: child.pid });
  }

  private async stopSlot(slot: Slot): Promise<void> {
    const child = slot.child;
    slot.child = undefined;
    slot.adminUrl = undefined;
    slot.url = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((s) => this.stopSlot(s)));
  }
}

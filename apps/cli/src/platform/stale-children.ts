/**
 * Children a dead supervisor left behind. `platform.json` records every child's pid; when the
 * supervisor it names is gone (killed, crashed, the machine's OOM killer) its children may still
 * hold their ports. Before starting again (and in `orrery down`) those are stopped — but only
 * processes that are really ours: the pid's command line must name the component's program
 * (a recycled pid belongs to someone else and is left alone). What such a child started itself
 * (the operator's workers and etcd members) sits in its process group and goes with it.
 */
import type { PlatformInfo } from './platform-file.ts';
import { type ProcInfo, listProcesses, terminate } from './processes.ts';

/** What the command line of the child recorded under `name` must contain. */
export function expectedProgram(name: string): RegExp {
  if (name === 'redis') return /(^|\/)redis-server(\s|$)/;
  if (name === 'nats') return /(^|\/)nats-server(\s|$)/;
  const app = name.replace(/-\d+$/, ''); // router-1 → router
  return new RegExp(`(^|[/ ])orrery-${app.replace(/[^a-z0-9-]/gi, '')}\\.mjs(\\s|$)`);
}

export interface StaleProcess {
  /** The recorded child's name; processes it started are "<name> (child)". */
  name: string;
  pid: number;
}

export function findStaleChildren(info: PlatformInfo, procs: readonly ProcInfo[] = listProcesses()): StaleProcess[] {
  const { supervisor: _supervisor, ...children } = info.pids;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const found: StaleProcess[] = [];
  const seen = new Set<number>();
  for (const [name, pid] of Object.entries(children)) {
    const leader = byPid.get(pid);
    const ours = leader !== undefined && expectedProgram(name).test(leader.cmdline);
    if (ours) {
      found.push({ name, pid });
      seen.add(pid);
    }
    // Its process group: what it started. With the leader verified, all of it; with the leader
    // gone (the pid may not be reused while the group lives), only what names our data dir.
    for (const p of procs) {
      if (p.pgrp !== pid || p.pid === pid || seen.has(p.pid)) continue;
      if (!ours && (leader !== undefined || !p.cmdline.includes(info.dataDir))) continue;
      found.push({ name: `${name} (child)`, pid: p.pid });
      seen.add(p.pid);
    }
  }
  return found;
}

/** `operator pid 12 (+3 it started), router-1 pid 15` */
export function describeStale(stale: readonly StaleProcess[]): string {
  const parts: string[] = [];
  for (const s of stale) {
    if (s.name.endsWith(' (child)')) continue;
    const started = stale.filter((x) => x.name === `${s.name} (child)`).length;
    parts.push(`${s.name} pid ${s.pid}${started ? ` (+${started} it started)` : ''}`);
  }
  const orphans = stale.filter((x) => x.name.endsWith(' (child)') && !stale.some((l) => `${l.name} (child)` === x.name));
  if (orphans.length) parts.push(`${orphans.length} process(es) started by children that are gone`);
  return parts.join(', ');
}

/**
 * Stops what `findStaleChildren` finds: SIGTERM, `graceMs`, SIGKILL. Says what it does;
 * resolves with what it stopped.
 */
export async function stopStaleChildren(info: PlatformInfo, say: (line: string) => void, graceMs = 10_000): Promise<StaleProcess[]> {
  const stale = findStaleChildren(info);
  if (stale.length === 0) return [];
  say(`stopping ${stale.length} process(es) left running by the previous supervisor (pid ${info.pids.supervisor}): ${describeStale(stale)}`);
  const killed = await terminate(
    stale.map((s) => s.pid),
    graceMs,
  );
  for (const pid of killed) say(`killed ${stale.find((s) => s.pid === pid)?.name ?? 'process'} (pid ${pid}): it did not stop within ${graceMs / 1000} s of SIGTERM`);
  return stale;
}

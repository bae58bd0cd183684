/**
 * What Linux's /proc says about a process: its command line, its process group, its CPU time
 * and resident memory. Each child of the supervisor leads its own process group (it is spawned
 * detached), so the group also holds what that child started (the operator's workers and etcd
 * members) — and still does after the child itself died.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  pgrp: number;
  /** Arguments joined with spaces. */
  cmdline: string;
}

/** Fields after the command name in /proc/<pid>/stat: [state, ppid, pgrp, …, utime (11), stime (12), …]. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export function readCmdline(pid: number): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw ? raw.replace(/\0+$/, '').replaceAll('\0', ' ') : undefined;
  } catch {
    return undefined;
  }
}

/** A live (not zombie) process, or undefined. */
export function procInfo(pid: number): ProcInfo | undefined {
  const f = statFields(pid);
  if (!f || f[0] === 'Z') return undefined;
  const cmdline = readCmdline(pid);
  if (cmdline === undefined) return undefined;
  return { pid, pgrp: Number(f[2]), cmdline };
}

/** Every live process this user can see. */
export function listProcesses(): ProcInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e)).map((e) => procInfo(Number(e))).filter((p): p is ProcInfo => p !== undefined);
}

/** Live members of process group `pgid` (the leader included when it lives). */
export function groupMembers(pgid: number, procs: readonly ProcInfo[] = listProcesses()): number[] {
  return procs.filter((p) => p.pgrp === pgid).map((p) => p.pid);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * SIGTERM to every pid, up to `graceMs` for them to exit, then SIGKILL to what is left.
 * Resolves with the pids that needed SIGKILL once none of them lives.
 */
export async function terminate(pids: readonly number[], graceMs: number): Promise<number[]> {
  const alive = () => pids.filter((p) => procInfo(p) !== undefined);
  for (const p of alive()) signal(p, 'SIGTERM');
  const end = Date.now() + graceMs;
  while (alive().length > 0 && Date.now() < end) await sleep(100);
  const killed = alive();
  for (const p of killed) signal(p, 'SIGKILL');
  const hardEnd = Date.now() + 5_000;
  while (alive().length > 0 && Date.now() < hardEnd) await sleep(50);
  return killed;
}

/** Stops whatever is left in the process group of a child that exited (orphans it started); resolves with their pids. */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<number[]> {
  const members = groupMembers(pgid);
  if (members.length) await terminate(members, graceMs);
  return members;
}

export interface ProcessUsage {
  /** User + system CPU time since the process started. */
  cpuSeconds: number;
  rssBytes: number;
}

/** CPU time and resident memory of a live process (Linux; undefined elsewhere or when gone). */
export function processUsage(pid: number): ProcessUsage | undefined {
  const f = statFields(pid);
  if (!f || f[0] === 'Z') return undefined;
  const ticks = Number(f[11]) + Number(f[12]);
  let rssKb = 0;
  try {
    rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return undefined;
  }
  // USER_HZ is 100 on every Linux Node supports.
  return { cpuSeconds: ticks / 100, rssBytes: rssKb * 1024 };
}

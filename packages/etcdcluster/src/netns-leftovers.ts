import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BRIDGE_PREFIX, CLAIM_DIR, NETNS_PREFIX, octetOf, VETH_PREFIX } from './netns-names.ts';

const tryIp = (...args: string[]): string => {
  try {
    return execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  } catch {
    return '';
  }
};

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids of every process inside a network namespace. */
export function netnsPidsSync(netns: string): number[] {
  return tryIp('netns', 'pids', netns).split(/\s+/).filter(Boolean).map(Number);
}

/** Our namespaces (by name) on this machine. */
export function ourNamespaces(): string[] {
  try {
    return readdirSync('/run/netns').filter((n) => n.startsWith(NETNS_PREFIX));
  } catch {
    return [];
  }
}

/** Our bridges and host veth ends (by name) on this machine. */
export function ourLinks(): string[] {
  const out = tryIp('-o', 'link', 'show');
  const names: string[] = [];
  for (const m of out.matchAll(/^\d+: ([^:@\s]+)/gm)) {
    const name = m[1]!;
    if ((name.startsWith(BRIDGE_PREFIX) || name.startsWith(VETH_PREFIX)) && octetOf(name) !== undefined) names.push(name);
  }
  return names;
}

/**
 * Removes one network's namespaces (killing what still runs inside), veths and bridge. The
 * claim file is the caller's business. Synchronous so it can run in a process 'exit' hook.
 */
export function removeNetworkSync(octet: number): string[] {
  const removed: string[] = [];
  for (const ns of ourNamespaces().filter((n) => octetOf(n) === octet)) {
    for (const pid of netnsPidsSync(ns)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    tryIp('netns', 'del', ns);
    removed.push(ns);
  }
  // Deleting a namespace destroys the veth pair with it once nothing runs inside; a veth whose
  // namespace lingered (a process still exiting) is removed by name.
  for (const link of ourLinks().filter((l) => octetOf(l) === octet && l.startsWith(VETH_PREFIX))) {
    tryIp('link', 'del', link);
    removed.push(link);
  }
  for (const link of ourLinks().filter((l) => octetOf(l) === octet && l.startsWith(BRIDGE_PREFIX))) {
    tryIp('link', 'del', link);
    removed.push(link);
  }
  return removed;
}

/** The pid in a claim file; undefined while the owner is still writing it. */
function claimOwner(octet: number): { pid?: number; ageMs: number } | undefined {
  const file = join(CLAIM_DIR, String(octet));
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return { pid: Number.isInteger(pid) && pid > 0 ? pid : undefined, ageMs: Date.now() - statSync(file).mtimeMs };
  } catch {
    return undefined;
  }
}

/** Whether octet's claim belongs to a live process (an empty claim younger than 10 s counts as live). */
export function claimIsLive(octet: number): boolean {
  const owner = claimOwner(octet);
  if (!owner) return false;
  if (owner.pid === undefined) return owner.ageMs < 10_000;
  return pidAlive(owner.pid);
}

/**
 * Removes every network of ours whose owner is gone (a test run that was SIGKILLed cannot clean
 * up after itself): namespaces and links without a live claim, and claims of dead owners.
 * Returns the names removed.
 */
export function removeLeftoverNetworks(): string[] {
  const octets = new Set<number>();
  for (const name of [...ourNamespaces(), ...ourLinks()]) octets.add(octetOf(name)!);
  let claims: string[] = [];
  try {
    claims = readdirSync(CLAIM_DIR);
  } catch {
    claims = [];
  }
  for (const c of claims) if (/^\d+$/.test(c)) octets.add(Number(c));
  const removed: string[] = [];
  for (const octet of octets) {
    if (claimIsLive(octet)) continue;
    removed.push(...removeNetworkSync(octet));
    try {
      unlinkSync(join(CLAIM_DIR, String(octet)));
    } catch {
      /* no claim */
    }
  }
  return removed;
}

/**
 * Which process listens on a TCP port, from /proc: the operator's worker list names each
 * worker's address but not its pid (and a pool worker's command line does not name its
 * function), and the registry the operator runs is not in the platform file. /proc/net/tcp{,6}
 * maps a listening port to a socket inode; the process holding `socket:[inode]` among its fds
 * is the listener.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

/** Listening port → socket inode, from the text of /proc/net/tcp or /proc/net/tcp6. */
export function listeningInodes(procNetTcp: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of procNetTcp.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (f.length < 10 || f[3] !== LISTEN) continue;
    const port = parseInt(f[1]!.split(':')[1]!, 16);
    if (Number.isFinite(port)) out.set(port, f[9]!);
  }
  return out;
}

/** The inode a `/proc/<pid>/fd/<n>` link names when it is a socket. */
export function socketInode(link: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(link)?.[1];
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** Port → pid of its listener, for the ports asked (a port nobody listens on is absent). */
export function listenerPids(ports: readonly number[]): Map<number, number> {
  const inodes = new Map([...listeningInodes(read('/proc/net/tcp')), ...listeningInodes(read('/proc/net/tcp6'))]);
  const wanted = new Map<string, number>();
  for (const p of ports) {
    const inode = inodes.get(p);
    if (inode) wanted.set(inode, p);
  }
  const found = new Map<number, number>();
  if (wanted.size === 0) return found;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = socketInode(link);
      const port = inode && wanted.get(inode);
      if (port) found.set(port, Number(entry));
    }
    if (found.size === wanted.size) break;
  }
  return found;
}

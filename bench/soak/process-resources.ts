/**
 * Resident memory and open file descriptors of one process, from /proc (Linux): VmRSS in
 * /proc/<pid>/status and the entries of /proc/<pid>/fd. Also what the soak's CPU figures use.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS in bytes from the text of /proc/<pid>/status (undefined when absent: a zombie). */
export function vmRssBytes(status: string): number | undefined {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

export interface ProcessResources {
  rssBytes: number;
  fds: number;
}

/** Undefined when the process is gone (or a zombie). */
export function processResources(pid: number): ProcessResources | undefined {
  try {
    const rssBytes = vmRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (rssBytes === undefined) return undefined;
    return { rssBytes, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';

/** Counts the kernel keeps for a process, each only ever growing. */
export interface IoCounts {
  /**
   * read(2)-family system calls (read, readv, pread) of every thread (/proc/<pid>/io syscr). Not
   * recv/recvfrom/recvmsg, which bypass the VFS: nginx reads its sockets with recv, so its count is 0.
   */
  reads: number;
  /** write(2)-family system calls (write, writev, pwrite; not send/sendto/sendmsg) (syscw). */
  writes: number;
  /**
   * Times the main thread gave up the CPU waiting (voluntary_ctxt_switches): for a node server,
   * how often its event loop went to sleep in epoll_wait and had to be woken.
   */
  sleeps: number;
}

/**
 * From /proc (Linux; root reads any process's io). Divided by the requests served, these say how
 * many system calls and event-loop wake-ups a request costs — figures that, unlike CPU time, a
 * noisy shared machine does not move, so a gap between two proxies can be split into kernel
 * crossings and user-space work.
 */
export function processIoCounts(pid: number): IoCounts {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (text: string, name: string): number => {
    const m = new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text);
    if (!m) throw new Error(`/proc/${pid}: no ${name}`);
    return Number(m[1]);
  };
  return { reads: field(io, 'syscr'), writes: field(io, 'syscw'), sleeps: field(status, 'voluntary_ctxt_switches') };
}

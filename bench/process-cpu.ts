import { readFileSync } from 'node:fs';

/**
 * User + system CPU seconds a process has used so far (all threads, GC and JIT included), from
 * /proc/<pid>/stat (Linux; CLK_TCK is 100 on every Debian kernel). The benchmarks divide it by
 * the requests served: a measure a noisy shared machine disturbs far less than latency.
 */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces or ')': the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15)
}

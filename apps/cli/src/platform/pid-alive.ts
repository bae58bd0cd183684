import { statFields } from './processes.ts';

/**
 * Is a process with this pid still alive? Signal 0 checks without touching it; a zombie (exited,
 * not yet reaped by a parent such as a container's PID 1) counts as gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(pid);
  // No /proc (not Linux): trust the signal check.
  return fields === undefined || fields[0] !== 'Z';
}

import type { ChildProcess } from 'node:child_process';

/** Every child handed here and not yet exited; killed when this process exits, whatever happens. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Makes sure `child` never outlives this process (a crashed test run leaves no etcd behind). */
export function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) {
      try {
        c.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
}

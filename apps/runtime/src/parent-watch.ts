/**
 * `--exit-with-parent PID`: notices that the process that started this worker is gone. A process
 * whose parent dies is handed to init (or the nearest subreaper), so its parent pid changes; the
 * watcher compares it every `intervalMs` (1 s: a lost operator's workers go within a second or
 * two, at the cost of one getppid call a second). The timer never keeps the process alive.
 */
export interface ParentWatchOptions {
  intervalMs?: number;
  /** The current parent pid (process.ppid reads it afresh each time). */
  parentPid?: () => number;
}

/** Calls `onGone` once, when the parent is no longer `pid` (at once if it already is not). Returns a stop function. */
export function watchParent(pid: number, onGone: () => void, o: ParentWatchOptions = {}): () => void {
  const parentPid = o.parentPid ?? (() => process.ppid);
  let timer: NodeJS.Timeout | undefined;
  const check = (): boolean => {
    if (parentPid() === pid) return false;
    if (timer) clearInterval(timer);
    timer = undefined;
    onGone();
    return true;
  };
  if (check()) return () => {};
  timer = setInterval(check, o.intervalMs ?? 1_000);
  timer.unref();
  return () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
}

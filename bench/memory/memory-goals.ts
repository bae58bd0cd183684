/**
 * Issue 24's resident-memory goals for an idle `npm start` (the embedded default with the
 * examples), and the verdict of one measurement against them. Pure: the bench feeds it samples.
 */
export const MEMORY_GOALS_MIB: Readonly<Record<string, number>> = { operator: 200, 'router-1': 80, 'router-2': 80, statesvc: 80 };

export interface ProcessMemory {
  /** VmRSS, what `orrery status` shows. */
  rssMiB: number;
  /** Pages only this process maps (its heap, its WebAssembly memory, its malloc arenas). */
  privateMiB: number;
  /** Clean pages shared with other processes: mostly the node binary's text, counted once per process by RSS. */
  sharedCleanMiB: number;
}

/** The median of each field over the samples (idle memory still moves with GC and timers). */
export function medianMemory(samples: readonly ProcessMemory[]): ProcessMemory {
  if (samples.length === 0) throw new Error('medianMemory: no samples');
  const median = (pick: (m: ProcessMemory) => number) => {
    const v = samples.map(pick).sort((a, b) => a - b);
    const mid = Math.floor(v.length / 2);
    return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  };
  return { rssMiB: median((m) => m.rssMiB), privateMiB: median((m) => m.privateMiB), sharedCleanMiB: median((m) => m.sharedCleanMiB) };
}

export interface MemoryVerdict {
  component: string;
  goalMiB: number | undefined;
  /** PASS/MISS against the goal; '-' where the issue sets none. */
  verdict: 'PASS' | 'MISS' | '-';
}

export function memoryVerdict(component: string, m: ProcessMemory): MemoryVerdict {
  const goalMiB = MEMORY_GOALS_MIB[component];
  if (goalMiB === undefined) return { component, goalMiB, verdict: '-' };
  return { component, goalMiB, verdict: m.rssMiB < goalMiB ? 'PASS' : 'MISS' };
}

/** Reads one process's memory from the text of /proc/<pid>/smaps_rollup (kB fields). */
export function parseSmapsRollup(text: string): ProcessMemory {
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    if (!m) throw new Error(`smaps_rollup has no ${field} line`);
    return Number(m[1]);
  };
  const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
  return { rssMiB: mib(kb('Rss')), privateMiB: mib(kb('Private_Clean') + kb('Private_Dirty')), sharedCleanMiB: mib(kb('Shared_Clean')) };
}

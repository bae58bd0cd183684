/**
 * CPU spent by groups of processes over a phase (user + system, all threads, from /proc), so
 * each phase can print CPU per request by process: on a shared machine that moves far less
 * than latency. A process first read during the phase (a worker started by the churn, a pool
 * refill) counts from zero: its start-up is part of the phase's cost. A process that goes away
 * during the phase counts up to its last reading, so the churn reads a worker just before it
 * removes it.
 */
export type CpuReader = (pid: number) => number | undefined;

export class CpuLedger {
  private readonly start = new Map<number, number>();
  private readonly latest = new Map<number, { group: string; seconds: number }>();

  constructor(private readonly read: CpuReader) {}

  /** The phase starts: the readings every later one is measured from. */
  begin(groups: Record<string, Iterable<number>>): void {
    for (const [group, pids] of Object.entries(groups)) {
      for (const pid of pids) {
        const s = this.read(pid);
        if (s === undefined) continue;
        this.start.set(pid, s);
        this.latest.set(pid, { group, seconds: s });
      }
    }
  }

  /** A reading during the phase or at its end (the last one of a pid counts). */
  note(group: string, pids: Iterable<number>): void {
    for (const pid of pids) {
      const s = this.read(pid);
      if (s !== undefined) this.latest.set(pid, { group, seconds: s });
    }
  }

  /** CPU seconds per group since `begin`. */
  totals(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [pid, { group, seconds }] of this.latest) out.set(group, (out.get(group) ?? 0) + seconds - (this.start.get(pid) ?? 0));
    return out;
  }
}

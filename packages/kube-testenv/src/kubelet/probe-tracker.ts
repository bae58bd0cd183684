import type { V1Probe } from '@kubernetes/client-node';

/** A probe's timing with the API defaults filled in. */
export interface ProbeTiming {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

export function probeTiming(p: V1Probe): ProbeTiming {
  return {
    initialDelayMs: (p.initialDelaySeconds ?? 0) * 1000,
    periodMs: (p.periodSeconds || 10) * 1000,
    timeoutMs: (p.timeoutSeconds || 1) * 1000,
    successThreshold: p.successThreshold || 1,
    failureThreshold: p.failureThreshold || 3,
  };
}

/**
 * The kubelet's probe worker bookkeeping: a result only changes after `successThreshold`
 * consecutive successes or `failureThreshold` consecutive failures (runs count from the last
 * change of the raw result).
 */
export class ProbeTracker {
  private last: boolean | undefined;
  private run = 0;

  constructor(
    private readonly timing: Pick<ProbeTiming, 'successThreshold' | 'failureThreshold'>,
    /** Readiness starts failed, liveness succeeded, startup not yet succeeded. */
    public result: boolean,
  ) {}

  /** Records one probe's outcome; says whether the tracked result changed. */
  record(success: boolean): boolean {
    if (this.last === success) this.run++;
    else {
      this.last = success;
      this.run = 1;
    }
    const threshold = success ? this.timing.successThreshold : this.timing.failureThreshold;
    if (this.run < threshold || this.result === success) return false;
    this.result = success;
    return true;
  }
}

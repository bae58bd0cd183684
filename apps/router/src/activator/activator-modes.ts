/**
 * Where the activator stands for each revision (knative's SKS Proxy / Serve mode), as the KPA
 * decided from the excess burst capacity (targetBurstCapacity). The autoscaler answers every
 * stats push with the modes of the revisions this router reported (AutoscalerStatsAnswer).
 *
 * In the path (the default): a request is admitted only to a worker with a free slot under
 * containerConcurrency, and otherwise waits in the revision's activator queue. Out of the path:
 * it goes straight to the least-loaded ready worker whatever its load, whose own breaker
 * queues it (knative's queue-proxy) — the router never buffers while ready workers exist.
 * With no ready worker a request still waits in the queue in either mode.
 *
 * Only "out of the path" is stored, so a revision the autoscaler does not scale, a new one, or
 * any revision once the answers stop (the operator is down) is in the path: the safe side.
 */
import { AutoscalerStatsAnswerSchema } from '@orrery/spec';
import { namespacedKey } from '../routing/namespaced-key.ts';
import type { RevisionRoute } from '../routing/route-table.ts';

/** An answer counts this long (the router pushes every second): then the activator is back in the path. */
export const ACTIVATOR_ANSWER_TTL_MS = 5_000;

export interface OutOfPath {
  namespace: string;
  revision: string;
  excessBurstCapacity: number;
}

export class ActivatorModes {
  /** Revision key (`<namespace>/<revision>`) → the entry; only revisions out of the path. */
  private out = new Map<string, OutOfPath>();
  private expiresAtMs = 0;

  /** Per-endpoint admission capacity for a request of this revision (0 = unlimited). */
  admitLimit(rev: RevisionRoute): number {
    return this.out.size !== 0 && this.out.has(rev.key) ? 0 : rev.containerConcurrency;
  }

  inPath(revKey: string): boolean {
    return !this.out.has(revKey);
  }

  /**
   * Takes the answer of one stats push as the whole truth for this router (a revision missing
   * from it is in the path). Returns the keys of revisions that just left the path: their
   * waiting requests may go now.
   */
  apply(answer: unknown, nowMs: number): string[] {
    const parsed = AutoscalerStatsAnswerSchema.safeParse(answer);
    const next = new Map<string, OutOfPath>();
    if (parsed.success) {
      for (const m of parsed.data.activator) {
        if (!m.inPath) next.set(namespacedKey(m.namespace, m.revision), { namespace: m.namespace, revision: m.revision, excessBurstCapacity: m.excessBurstCapacity });
      }
    }
    const left: string[] = [];
    for (const key of next.keys()) if (!this.out.has(key)) left.push(key);
    this.out = next;
    this.expiresAtMs = nowMs + ACTIVATOR_ANSWER_TTL_MS;
    return left;
  }

  /** No answer for a while: every revision is back in the path. */
  expire(nowMs: number): void {
    if (this.out.size !== 0 && nowMs >= this.expiresAtMs) this.out = new Map();
  }

  /** For `/v1/stats`: the revisions out of the path. */
  view(): OutOfPath[] {
    return [...this.out.values()];
  }
}

/**
 * What happens when a request starts waiting for a revision: a pool-executor revision is
 * specialized (activator/pool-specializer.ts); any other revision, or one the executor does not
 * specialize, pokes the autoscaler. An address either answers is admitted at once, like a pool
 * specialization's: the endpoints file or the registry would take longer to list it.
 */
import type { MessageLog } from '@orrery/log';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionRoute } from '../routing/route-table.ts';
import type { AutoscalerClient } from './autoscaler-client.ts';
import type { PoolSpecializer } from './pool-specializer.ts';

export interface ColdStartOptions {
  /** Absent: no autoscaler to poke (`--autoscaler-url` not given). */
  autoscaler: AutoscalerClient | undefined;
  /** Absent: no executor (`--executor-url` not given). */
  specializer: PoolSpecializer | undefined;
  /** An address the autoscaler answered: admit it now (the endpoint union). */
  onAddress: (record: EndpointRecord) => void;
  routerId: string;
  log: MessageLog;
}

export class ColdStart {
  private readonly lastPoke = new Map<string, number>();
  private pokeErrors = 0;

  constructor(private readonly o: ColdStartOptions) {}

  /** A request started waiting for `rev` (the data plane's `poke`). */
  readonly onWait = (rev: RevisionRoute, queueLength: number, inflight: number): void => {
    // Deduplicated per revision; a revision with a live specialized worker just gets its address.
    // The autoscaler is poked only for revisions the executor does not specialize (see coldRequest).
    if (this.o.specializer) this.o.specializer.coldRequest(rev, () => this.poke(rev, queueLength, inflight));
    else this.poke(rev, queueLength, inflight);
  };

  private poke(rev: RevisionRoute, queueLength: number, inflight: number): void {
    const autoscaler = this.o.autoscaler;
    if (!autoscaler) return;
    const now = Date.now();
    // The first waiter always pokes at once; a growing queue pokes at most once a second.
    if (queueLength > 1 && now - (this.lastPoke.get(rev.key) ?? 0) < 1000) return;
    this.lastPoke.set(rev.key, now);
    autoscaler
      .poke({ namespace: rev.namespace, function: rev.function, revision: rev.revision, queueLength, inflight, router: this.o.routerId })
      .then((addresses) => {
        for (const address of addresses) this.o.onAddress({ namespace: rev.namespace, function: rev.function, revision: rev.revision, address, ready: true });
      })
      .catch((err: unknown) => {
        if (this.pokeErrors++ % 60 === 0) this.o.log(`autoscaler poke failed: ${String(err)}`, 'warn');
      });
  }
}

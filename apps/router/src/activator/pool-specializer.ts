/**
 * The router's cold path for pool-executor revisions (docs/architecture.md "A request"): when a request starts waiting
 * for a revision with no endpoint, ask the operator's executor to specialize a warm worker and
 * admit the address it answers at once, without waiting for the registry watch or the endpoints
 * file. One call per revision at a time however many requests wait; a revision the executor
 * says is not pooled is remembered (revisions are immutable), so deploy revisions cost one call.
 */
import { operatorPost } from './operator-post.ts';
import type { MessageLog } from '@orrery/log';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionRoute } from '../routing/route-table.ts';

export interface PoolSpecializerOptions {
  executorUrl: string;
  /** Bearer token the operator wants on its control endpoints (the store token). */
  token?: string;
  /** A specialized worker's address: add it to the revision's endpoints now. */
  onAddress: (record: EndpointRecord) => void;
  log: MessageLog;
  /** Seam for tests. */
  post?: (url: string, body: unknown) => Promise<{ status: number; body: unknown }>;
}


export class PoolSpecializer {
  private readonly notPooled = new Set<string>();
  private readonly inflight = new Set<string>();
  /** The latest `otherwise` per revision whose specialize call is in flight. */
  private readonly fallbacks = new Map<string, () => void>();
  private errors = 0;

  constructor(private readonly o: PoolSpecializerOptions) {}

  /**
   * Called when a request starts waiting for `rev` and it had no endpoint. `otherwise` runs when
   * the executor does not specialize the revision (not pooled, or the call failed): the caller
   * pokes the autoscaler then. A pooled revision is not poked — the specialization wakes it, and
   * a poke would only make the operator reconcile it while the cold request waits.
   */
  coldRequest(rev: RevisionRoute, otherwise?: () => void): void {
    if (this.notPooled.has(rev.key)) return otherwise?.();
    if (otherwise) this.fallbacks.set(rev.key, otherwise);
    if (this.inflight.has(rev.key)) return;
    this.inflight.add(rev.key);
    const post = this.o.post ?? ((url: string, body: unknown) => operatorPost(url, body, { token: this.o.token, timeoutMs: 65_000 }));
    let specialized = false;
    post(`${this.o.executorUrl}/v1/executor/specialize`, { namespace: rev.namespace, function: rev.function, revision: rev.revision })
      .then(({ status, body }) => {
        const b = body as { address?: unknown; code?: unknown; error?: unknown };
        if (status === 200 && typeof b.address === 'string') {
          specialized = true;
          this.o.onAddress({ namespace: rev.namespace, function: rev.function, revision: rev.revision, address: b.address, ready: true });
        } else if (status === 409 && b.code === 'not_pool_executor') {
          this.notPooled.add(rev.key);
        } else if (this.errors++ % 60 === 0) {
          this.o.log(`specialize ${rev.key} answered ${status}: ${typeof b.error === 'string' ? b.error : ''}`, 'warn');
        }
      })
      .catch((err: unknown) => {
        if (this.errors++ % 60 === 0) this.o.log(`specialize ${rev.key} failed: ${String(err)}`, 'warn');
      })
      .finally(() => {
        this.inflight.delete(rev.key);
        const fallback = this.fallbacks.get(rev.key);
        this.fallbacks.delete(rev.key);
        if (!specialized) fallback?.();
      });
  }
}

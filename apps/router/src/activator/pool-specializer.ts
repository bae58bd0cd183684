/**
 * The router's cold path for pool-executor revisions (DESIGN §5): when a request starts waiting
 * for a revision with no endpoint, ask the operator's executor to specialize a warm worker and
 * admit the address it answers at once, without waiting for the registry watch or the endpoints
 * file. One call per revision at a time however many requests wait; a revision the executor
 * says is not pooled is remembered (revisions are immutable), so deploy revisions cost one call.
 */
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { RevisionRoute } from '../routing/route-table.ts';

export interface PoolSpecializerOptions {
  executorUrl: string;
  /** A specialized worker's address: add it to the revision's endpoints now. */
  onAddress: (record: EndpointRecord) => void;
  log: (message: string) => void;
  /** Seam for tests. */
  post?: (url: string, body: unknown) => Promise<{ status: number; body: unknown }>;
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(65_000) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as unknown };
}

export class PoolSpecializer {
  private readonly notPooled = new Set<string>();
  private readonly inflight = new Set<string>();
  private errors = 0;

  constructor(private readonly o: PoolSpecializerOptions) {}

  /** Called when a request starts waiting for `rev` and it had no endpoint. */
  coldRequest(rev: RevisionRoute): void {
    if (this.notPooled.has(rev.key) || this.inflight.has(rev.key)) return;
    this.inflight.add(rev.key);
    const post = this.o.post ?? postJson;
    post(`${this.o.executorUrl}/v1/executor/specialize`, { namespace: rev.namespace, function: rev.function, revision: rev.revision })
      .then(({ status, body }) => {
        const b = body as { address?: unknown; code?: unknown; error?: unknown };
        if (status === 200 && typeof b.address === 'string') {
          this.o.onAddress({ namespace: rev.namespace, function: rev.function, revision: rev.revision, address: b.address, ready: true });
        } else if (status === 409 && b.code === 'not_pool_executor') {
          this.notPooled.add(rev.key);
        } else if (this.errors++ % 60 === 0) {
          this.o.log(`specialize ${rev.key} answered ${status}: ${typeof b.error === 'string' ? b.error : ''}`);
        }
      })
      .catch((err: unknown) => {
        if (this.errors++ % 60 === 0) this.o.log(`specialize ${rev.key} failed: ${String(err)}`);
      })
      .finally(() => this.inflight.delete(rev.key));
  }
}

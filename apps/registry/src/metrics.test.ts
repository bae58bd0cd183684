import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

const sample = (reads: { n: number }, swept: { n: number }) => ({
  instances: () => 0,
  expired: () => 0,
  revision: () => 0,
  barrierReads: () => reads.n,
  swept: () => swept.n,
  putTxns: () => 4,
  putTxnPuts: () => 37,
  replication: () => [],
});

describe('registry metrics', () => {
  it('exposes barrier reads and swept records as _total counters that follow their monotonic sources', async () => {
    const reads = { n: 3 };
    const swept = { n: 0 };
    const m = createMetrics(sample(reads, swept));
    let text = await m.registry.metrics();
    expect(text).toContain('# TYPE orrery_registry_barrier_reads_total counter');
    expect(text).toContain('# TYPE orrery_registry_sweeper_removed_total counter');
    expect(text).toMatch(/^orrery_registry_barrier_reads_total 3$/m);
    expect(text).toMatch(/^orrery_registry_sweeper_removed_total 0$/m);
    reads.n = 10;
    swept.n = 2;
    text = await m.registry.metrics();
    expect(text).toMatch(/^orrery_registry_barrier_reads_total 10$/m);
    expect(text).toMatch(/^orrery_registry_sweeper_removed_total 2$/m);
    expect(text).not.toMatch(/^orrery_registry_barrier_reads /m);
    expect(text).toMatch(/^orrery_registry_put_txns_total 4$/m);
    expect(text).toMatch(/^orrery_registry_put_txn_puts_total 37$/m);
  });

  it('uses the standard process_* and nodejs_* names, without a prefix', async () => {
    const text = await createMetrics(sample({ n: 0 }, { n: 0 })).registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(text).not.toContain('orrery_registry_process_');
  });
});

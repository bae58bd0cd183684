import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@orrery/tracing';
import { inMemoryTracing } from '@orrery/tracing/testing';
import { WorkQueue } from './work-queue.ts';

describe('reconcile spans (work queue)', () => {
  it('one span per run: kind, namespace/name, result and requeue', async () => {
    const t = inMemoryTracing();
    let fail = true;
    const q = new WorkQueue(
      async (key) => {
        if (key === 'shop/cart' && fail) {
          fail = false;
          throw new TypeError('the object said something private');
        }
      },
      { kind: 'Function', tracer: t.tracer, baseDelayMs: 10 },
    );
    q.add('shop/cart');
    await q.idle();
    await new Promise((r) => setTimeout(r, 40)); // the retry after its backoff
    await q.idle();
    const [failed, retried] = t.spans();
    expect(t.spans()).toHaveLength(2);
    expect(failed!.name).toBe('reconcile Function');
    expect(failed!.kind).toBe(SpanKind.INTERNAL);
    expect(failed!.parentSpanContext).toBeUndefined();
    expect(failed!.attributes).toEqual({
      'orrery.kind': 'Function',
      'orrery.namespace': 'shop',
      'orrery.name': 'cart',
      'orrery.reconcile.result': 'error',
      'orrery.reconcile.requeue': true,
      'orrery.reconcile.requeue_after_ms': 10,
      'error.type': 'TypeError',
    });
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify(failed!.attributes)).not.toContain('private');
    expect(retried!.attributes).toMatchObject({ 'orrery.reconcile.result': 'success', 'orrery.reconcile.requeue': false });
    expect(retried!.spanContext().traceId).not.toBe(failed!.spanContext().traceId);
  });

  it('a change that arrives during a run is a requeue at once', async () => {
    const t = inMemoryTracing();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const q = new WorkQueue(
      async () => {
        if (++runs === 1) await gate;
      },
      { kind: 'Revision', tracer: t.tracer },
    );
    q.add('default/r-00001');
    await new Promise((r) => setTimeout(r, 5));
    q.add('default/r-00001');
    release();
    await q.idle();
    await new Promise((r) => setTimeout(r, 5));
    await q.idle();
    expect(t.spans().map((s) => [s.attributes['orrery.reconcile.requeue'], s.attributes['orrery.reconcile.requeue_after_ms']])).toEqual([
      [true, 0],
      [false, undefined],
    ]);
  });

  it('a queue without a kind makes no spans', async () => {
    const t = inMemoryTracing();
    const q = new WorkQueue(async () => {}, { tracer: t.tracer });
    q.add('a/b');
    await q.idle();
    expect(t.spans()).toEqual([]);
  });
});

/**
 * A span per reconcile (one run of a work queue's handler for one key): the kind, the object's
 * namespace/name, how it ended and whether the key runs again (a retry after an error, or a change
 * that arrived while it ran). Reconciles start traces of their own: they follow watch events, not
 * requests.
 */
import { SpanKind, SpanStatusCode, type Span, type Tracer } from '@orrery/tracing';

export type ReconcileResult = 'success' | 'error';

export class ReconcileSpan {
  private readonly span: Span;

  constructor(tracer: Tracer, kind: string, key: string) {
    const slash = key.indexOf('/');
    this.span = tracer.startSpan(`reconcile ${kind}`, {
      kind: SpanKind.INTERNAL,
      attributes: slash < 0 ? { 'orrery.kind': kind, 'orrery.name': key } : { 'orrery.kind': kind, 'orrery.namespace': key.slice(0, slash), 'orrery.name': key.slice(slash + 1) },
    });
  }

  /** `requeueAfterMs`: the key runs again after this delay (0 = at once); undefined = not queued again. */
  end(result: ReconcileResult, requeueAfterMs: number | undefined, err?: unknown): void {
    const s = this.span;
    s.setAttribute('orrery.reconcile.result', result);
    s.setAttribute('orrery.reconcile.requeue', requeueAfterMs !== undefined);
    if (requeueAfterMs !== undefined) s.setAttribute('orrery.reconcile.requeue_after_ms', requeueAfterMs);
    if (result === 'error') {
      // The error's class, not its message: messages can quote object contents.
      s.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
      s.setStatus({ code: SpanStatusCode.ERROR });
    }
    s.end();
  }
}

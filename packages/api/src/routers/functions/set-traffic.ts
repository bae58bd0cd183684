import type { TrafficTarget, OrreryFunction } from '@orrery/spec';
import { validate } from '@orrery/spec';
import type { ApiContext } from '../../context.ts';
import { TRPCError } from '@trpc/server';
import { badRequest, notFound, specIssues, storeCall } from '../../errors.ts';
import type { AuditNote } from '../../trpc.ts';
import { writableObject } from '../writable-object.ts';

/**
 * Replaces `spec.traffic` after the spec's own validation (sum 100, tags, revision names), with
 * optimistic concurrency so two editors cannot silently overwrite each other (on the spec's
 * generation, or on the whole object's resourceVersion). Shared by traffic.set and rollback.
 */
export async function setTraffic(
  ctx: ApiContext & { audit: AuditNote },
  ref: { namespace: string; name: string; resourceVersion?: string; generation?: number },
  traffic: TrafficTarget[],
): Promise<OrreryFunction> {
  for (let attempt = 1; ; attempt++) {
    const fn = (await storeCall(() => ctx.store.get('Function', ref.namespace, ref.name))) as OrreryFunction | undefined;
    if (!fn) throw notFound(`Function ${ref.namespace}/${ref.name}`);
    const next = writableObject(fn) as { spec: { traffic: TrafficTarget[] } };
    next.spec.traffic = traffic;
    const errors = validate(next).filter((e) => e.path.startsWith('spec.traffic'));
    if (errors.length) throw badRequest(`the traffic split is invalid: ${errors[0]!.message}`, specIssues(errors.map((e) => ({ ...e, path: e.path.replace(/^spec\./, '') }))));
    // With a generation, only a spec change since the caller's read is a conflict: the operator
    // writes status all the time, and a split edited on a busy function must not keep failing.
    if (ref.generation !== undefined && ref.generation !== fn.metadata.generation) {
      throw new TRPCError({ code: 'CONFLICT', message: `Function ${ref.namespace}/${ref.name} was changed since you read it (generation ${ref.generation}, now ${fn.metadata.generation}); reload and retry` });
    }
    const precondition = ref.generation !== undefined ? fn.metadata.resourceVersion : (ref.resourceVersion ?? fn.metadata.resourceVersion);
    try {
      const saved = (await storeCall(() => ctx.store.apply(next, { resourceVersion: precondition }))) as OrreryFunction;
      ctx.audit.before = { traffic: fn.spec.traffic };
      ctx.audit.after = { traffic: saved.spec.traffic };
      return saved;
    } catch (err) {
      // A status write between this read and the write (the soak saw one): read again; the
      // generation check above still refuses a spec change. Without a generation the caller's
      // resourceVersion (or this read's) is the contract, so the conflict is theirs.
      if (ref.generation === undefined || attempt >= MAX_ATTEMPTS || !(err instanceof TRPCError && err.code === 'CONFLICT')) throw err;
    }
  }
}

/** Reads and writes at most this often when only status writes get in between. */
const MAX_ATTEMPTS = 5;

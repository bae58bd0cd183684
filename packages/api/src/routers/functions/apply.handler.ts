import type { OrreryFunction } from '@orrery/spec';
import { badRequest } from '../../errors.ts';
import { applyValidated } from '../apply-validated.ts';
import { auditedMutation } from '../../trpc.ts';
import { ApplyFunctionInput } from './apply.schema.ts';

const targetOf = (raw: Record<string, unknown>) => {
  const m = (raw.manifest as { metadata?: { namespace?: string; name?: string } } | undefined)?.metadata;
  return `${m?.namespace ?? 'default'}/${m?.name ?? '?'}`;
};

export const apply = auditedMutation('operator', 'functions.applyManifest', 'Create or replace a Function (spec validated like the webhook).', targetOf)
  .input(ApplyFunctionInput)
  .mutation(async ({ ctx, input }) => {
    if (input.manifest.kind !== 'Function') throw badRequest('functions.apply takes a Function manifest', [{ path: 'manifest.kind', message: 'must be "Function"' }]);
    const { saved } = await applyValidated(ctx, 'Function', input.manifest, input.resourceVersion);
    const fn = saved as OrreryFunction;
    ctx.audit.after = { ...(ctx.audit.after as object), traffic: fn.spec.traffic };
    return fn;
  });

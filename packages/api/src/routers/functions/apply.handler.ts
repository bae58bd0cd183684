import { validate, type OrreryFunction } from '@orrery/spec';
import { badRequest, specIssues, storeCall } from '../../errors.ts';
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
    const errors = validate(input.manifest);
    if (errors.length) throw badRequest(`the Function is invalid: ${errors[0]!.message}`, specIssues(errors, 'manifest'));
    const meta = input.manifest.metadata as { namespace?: string; name: string };
    const before = await storeCall(() => ctx.store.get('Function', meta.namespace ?? 'default', meta.name));
    const saved = (await storeCall(() => ctx.store.apply(input.manifest, { resourceVersion: input.resourceVersion }))) as OrreryFunction;
    ctx.audit.before = before ? { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion } : null;
    ctx.audit.after = { generation: saved.metadata.generation, resourceVersion: saved.metadata.resourceVersion, traffic: saved.spec.traffic };
    return saved;
  });

import { validate, type RegistryCluster } from '@orrery/spec';
import { badRequest, notFound, specIssues, storeCall } from '../../errors.ts';
import { auditedMutation } from '../../trpc.ts';
import { writableObject } from '../writable-object.ts';
import { clusterTarget } from './cluster-target.ts';
import { ScaleClusterInput } from './scale.schema.ts';

// admin: the voter count sets the quorum size (and scaling down removes members).
export const scale = auditedMutation('admin', 'registry.scale', 'Set the desired voter count (spec.replicas, odd); the operator changes membership one safe step at a time.', clusterTarget)
  .input(ScaleClusterInput)
  .mutation(async ({ ctx, input }) => {
    const c = (await storeCall(() => ctx.store.get('RegistryCluster', input.namespace, input.cluster))) as RegistryCluster | undefined;
    if (!c) throw notFound(`RegistryCluster ${input.namespace}/${input.cluster}`);
    const next = writableObject(c) as { spec: { replicas: number } };
    next.spec.replicas = input.replicas;
    const errors = validate(next).filter((e) => e.path === 'spec.replicas');
    if (errors.length) throw badRequest(`replicas: ${errors[0]!.message}`, specIssues(errors.map((e) => ({ ...e, path: 'replicas' }))));
    const saved = (await storeCall(() => ctx.store.apply(next, { resourceVersion: input.resourceVersion ?? c.metadata.resourceVersion }))) as RegistryCluster;
    ctx.audit.before = { replicas: c.spec.replicas };
    ctx.audit.after = { replicas: saved.spec.replicas };
    return { replicas: saved.spec.replicas, generation: saved.metadata.generation, resourceVersion: saved.metadata.resourceVersion };
  });

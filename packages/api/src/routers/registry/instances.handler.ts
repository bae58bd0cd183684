import { TRPCError } from '@trpc/server';
import { checkAnswer, RegistryInstancesDataSchema, type RegistryCluster } from '@orrery/spec';
import { fetchJson } from '../../clients/fetch-json.ts';
import { badRequest, notFound, storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { InstancesInput } from './instances.schema.ts';

export const instances = protectedProcedure('viewer', "Instances browser: the cluster's registry API queried with its selector grammar.")
  .input(InstancesInput)
  .query(async ({ ctx, input }) => {
    const c = (await storeCall(() => ctx.store.get('RegistryCluster', input.namespace, input.cluster))) as RegistryCluster | undefined;
    if (!c) throw notFound(`RegistryCluster ${input.namespace}/${input.cluster}`);
    const endpoint = c.status?.endpoint;
    if (!endpoint) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `RegistryCluster ${input.cluster} has no registry API endpoint yet (status.endpoint); wait for the operator` });
    const q = new URLSearchParams({ namespace: input.registryNamespace, limit: String(input.limit) });
    for (const s of input.service ?? []) q.append('service', s);
    for (const s of input.servicePrefix ?? []) q.append('servicePrefix', s);
    for (const s of input.selector ?? []) q.append('selector', s);
    if (input.zone) q.set('zone', input.zone);
    const a = await fetchJson('registry', `${endpoint.replace(/\/$/, '')}/api/v1/registry/instances?${q}`, ctx.upstreamTimeoutMs ?? 3000);
    const body = a.body as { code?: string; message?: string; data?: unknown };
    if (a.status === 400) throw badRequest(body.message ?? 'the registry refused the query', [{ path: 'selector', message: body.message ?? 'invalid' }]);
    if (a.status !== 200 || !body.data) throw new TRPCError({ code: 'BAD_GATEWAY', message: `registry answered ${a.status}: ${body.message ?? ''}` });
    // The registry's wire contract (@orrery/spec): a body that does not match is not passed on to the console.
    const data = checkAnswer(RegistryInstancesDataSchema, body.data);
    if (!data.ok) throw new TRPCError({ code: 'BAD_GATEWAY', message: `bad_response: the registry's instances answer does not match this API's contract (is the registry a different version?): ${data.problem}` });
    return { revision: data.value.revision, instances: data.value.instances };
  });

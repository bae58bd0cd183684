import { z } from 'zod';
import { ClusterRefSchema } from './cluster-ref.schema.ts';

/**
 * A query against the cluster's registry API (`GET /api/v1/registry/instances`): the registry's
 * own parameters, passed through; `selector` uses its grammar (key, !key, key=value, key!=value,
 * key in (a,b), key notin (a,b)) and a bad one answers BAD_REQUEST with the registry's message.
 */
export const InstancesInput = ClusterRefSchema.extend({
  registryNamespace: z.string().min(1).max(200),
  service: z.array(z.string().min(1).max(300)).max(20).optional(),
  servicePrefix: z.array(z.string().min(1).max(300)).max(20).optional(),
  zone: z.string().max(100).optional(),
  selector: z.array(z.string().min(1).max(1000)).max(20).optional(),
  limit: z.number().int().min(1).max(5000).default(500),
});

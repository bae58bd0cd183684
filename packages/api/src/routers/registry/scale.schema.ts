import { z } from 'zod';
import { ResourceVersionSchema } from '../object-ref.schema.ts';
import { ClusterRefSchema } from './cluster-ref.schema.ts';

/** New `spec.replicas` (voters; odd, checked by @orrery/spec). */
export const ScaleClusterInput = ClusterRefSchema.extend({ replicas: z.number().int().min(1).max(9), resourceVersion: ResourceVersionSchema });

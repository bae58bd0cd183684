import { z } from 'zod';
import { ResourceRequirementsSchema, StatusBaseSchema } from '../meta.ts';
import { kindSchema } from './kind-schema.ts';
import { says } from '../validate/reasons.ts';

export const EnvironmentSpecSchema = z.object({
  /** Container image of the runtime; it picks the runtime (`orrery/runtime-node`, `orrery/runtime-python`). The local backend runs only those, as processes. */
  image: z.string().min(1).default('orrery/runtime-node:latest'),
  /** Warm generic workers kept ready for the pool executor. */
  poolSize: z.number().int().min(0, says('pool_size')).default(3),
  resources: ResourceRequirementsSchema.optional(),
  /** `infinite` lets one worker serve many functions; keyed state needs `single`. */
  allowedFunctionsPerContainer: z.enum(['single', 'infinite']).default('single'),
});
export type EnvironmentSpec = z.infer<typeof EnvironmentSpecSchema>;

export const EnvironmentStatusSchema = StatusBaseSchema.extend({
  readyPoolWorkers: z.number().int().nonnegative().optional(),
});

export const EnvironmentSchema = kindSchema('Environment', EnvironmentSpecSchema, EnvironmentStatusSchema);
export type Environment = z.infer<typeof EnvironmentSchema>;
export type EnvironmentInput = z.input<typeof EnvironmentSchema>;

/** A stored object read as an Environment (defaults applied), or undefined when it is none or not valid. */
export function environmentOf(obj: unknown): Environment | undefined {
  const r = EnvironmentSchema.safeParse(obj);
  return r.success ? r.data : undefined;
}

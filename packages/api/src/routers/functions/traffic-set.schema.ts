import { z } from 'zod';
import { TrafficTargetSchema } from '@orrery/spec';
import { GenerationSchema, ObjectRefSchema, ResourceVersionSchema } from '../object-ref.schema.ts';

/** The new `spec.traffic` (percents sum to 100, tags unique: checked by @orrery/spec). */
export const SetTrafficInput = ObjectRefSchema.extend({
  traffic: z.array(TrafficTargetSchema).max(100),
  resourceVersion: ResourceVersionSchema,
  generation: GenerationSchema,
});

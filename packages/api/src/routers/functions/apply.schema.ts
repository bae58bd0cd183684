import { z } from 'zod';
import { ResourceVersionSchema } from '../object-ref.schema.ts';

/** A whole Function manifest; its fields are judged by @orrery/spec validate() in the handler. */
export const ApplyFunctionInput = z.object({
  manifest: z.record(z.string(), z.unknown()),
  resourceVersion: ResourceVersionSchema,
});

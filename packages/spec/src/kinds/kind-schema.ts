import { z } from 'zod';
import { GROUP_VERSION, ObjectMetaSchema } from '../meta.ts';

/**
 * A whole object of one orrery.dev kind: apiVersion, kind, metadata, its spec and an optional
 * status (absent until the operator writes one). Every kind has this envelope; only the spec and
 * status differ.
 */
export function kindSchema<Kind extends string, Spec extends z.ZodType, Status extends z.ZodType>(kind: Kind, spec: Spec, status: Status) {
  return z.object({
    apiVersion: z.literal(GROUP_VERSION),
    kind: z.literal(kind),
    metadata: ObjectMetaSchema,
    spec,
    status: status.optional(),
  });
}

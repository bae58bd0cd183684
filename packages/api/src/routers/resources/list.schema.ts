import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';
import { KindSchema } from './kind.schema.ts';

/** Omit `namespace` for every namespace. */
export const ListResourcesInput = z.object({
  kind: KindSchema,
  // Without removeDefault, an omitted namespace would become "default" (the schema's default).
  namespace: NamespaceSchema.removeDefault().optional(),
  /** Equality label selector (`orrery get -l k=v`): every pair must match. */
  labels: z.record(z.string().max(317), z.string().max(63)).optional(),
});

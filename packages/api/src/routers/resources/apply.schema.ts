import { z } from 'zod';
import { ResourceVersionSchema } from '../object-ref.schema.ts';

/** A whole manifest of any applicable kind; its fields are judged by @orrery/spec validate(). */
export const ApplyResourceInput = z.object({
  manifest: z.record(z.string(), z.unknown()),
  resourceVersion: ResourceVersionSchema,
  /** Kubernetes: take over fields another field manager owns (kubectl's --force-conflicts). */
  force: z.boolean().optional(),
});

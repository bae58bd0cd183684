import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';

export const NamespaceUsageInput = z.object({ namespace: NamespaceSchema.optional() }).default({});

import { z } from 'zod';
import { NameSchema, NamespaceSchema } from '../object-ref.schema.ts';

export const LiveStickyInput = z.object({ namespace: NamespaceSchema.optional(), function: NameSchema.optional() }).default({});

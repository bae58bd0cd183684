import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';

export const ListStateSyncInput = z.object({ namespace: NamespaceSchema.optional() }).default({});

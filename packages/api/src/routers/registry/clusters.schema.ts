import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';

export const ListClustersInput = z.object({ namespace: NamespaceSchema.optional() }).default({});

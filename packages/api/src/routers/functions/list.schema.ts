import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';

export const ListFunctionsInput = z.object({ namespace: NamespaceSchema.optional() }).default({});

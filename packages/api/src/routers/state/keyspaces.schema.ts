import { z } from 'zod';
import { NameSchema, NamespaceSchema } from '../object-ref.schema.ts';

/** Usage of every stateful function's keyspace in a namespace, or of one function's. */
export const KeyspaceUsageInput = z.object({ namespace: NamespaceSchema, function: NameSchema.optional() });

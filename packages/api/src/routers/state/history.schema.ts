import { z } from 'zod';
import { KEYSPACE_PATTERN } from '@orrery/spec';
import { NamespaceSchema } from '../object-ref.schema.ts';

export const KeyspaceHistoryInput = z.object({
  namespace: NamespaceSchema,
  keyspace: z.string().max(63).regex(KEYSPACE_PATTERN, 'a keyspace name (lowercase letters, digits, -)'),
  minutes: z.number().int().min(1).max(7 * 24 * 60).default(60),
});

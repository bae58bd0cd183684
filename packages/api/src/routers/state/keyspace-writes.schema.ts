import { z } from 'zod';
import { KEYSPACE_PATTERN, KEYSPACE_WRITES_DEFAULT_LIMIT, KEYSPACE_WRITES_MAX_LIMIT } from '@orrery/spec';
import { NamespaceSchema } from '../object-ref.schema.ts';

/** One keyspace's change feed, idempotency outcomes and fences (statesvc `GET /v1/admin/keyspace-writes`). */
export const KeyspaceWritesInput = z.object({
  namespace: NamespaceSchema,
  keyspace: z.string().max(63).regex(KEYSPACE_PATTERN, 'a keyspace name (lowercase letters, digits, -)'),
  limit: z.number().int().min(1).max(KEYSPACE_WRITES_MAX_LIMIT).default(KEYSPACE_WRITES_DEFAULT_LIMIT),
});

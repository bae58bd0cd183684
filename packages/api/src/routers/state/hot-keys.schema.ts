import { z } from 'zod';
import { HOT_KEYS_DEFAULT_LIMIT, HOT_KEYS_MAX_LIMIT, KEYSPACE_PATTERN } from '@orrery/spec';
import { NamespaceSchema } from '../object-ref.schema.ts';

/** One keyspace's hot keys: its state calls (statesvc) and, when its Function is sticky, its sticky requests (routers). */
export const HotKeysInput = z.object({
  namespace: NamespaceSchema,
  keyspace: z.string().max(63).regex(KEYSPACE_PATTERN, 'a keyspace name (lowercase letters, digits, -)'),
  limit: z.number().int().min(1).max(HOT_KEYS_MAX_LIMIT).default(HOT_KEYS_DEFAULT_LIMIT),
});

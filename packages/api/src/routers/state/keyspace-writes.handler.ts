import { StateKeyspaceWritesSchema } from '@orrery/spec';
import { statesvcAdminGet } from '../../clients/statesvc-admin.ts';
import { hotKeyHasher, stateKeyScope } from '../../hot-keys/hot-key-id.ts';
import { protectedProcedure } from '../../trpc.ts';
import { KeyspaceWritesInput } from './keyspace-writes.schema.ts';

export const keyspaceWrites = protectedProcedure(
  'viewer',
  "A keyspace's change feed (retained window, open streams, newest changes without values), its stored idempotency outcomes and its fences (docs/state.md), with the answering statesvc replica's replay, mismatch, claim and refusal counts. Viewers get keyed hashes instead of keys.",
)
  .input(KeyspaceWritesInput)
  .query(async ({ ctx, input }) => {
    const params = new URLSearchParams({ 'scope-namespace': input.namespace, 'scope-keyspace': input.keyspace, limit: String(input.limit) });
    const answer = await statesvcAdminGet(ctx, `/v1/admin/keyspace-writes?${params}`, StateKeyspaceWritesSchema);
    // Operators and admins see the keys; a viewer sees the same stable ids as in the hot-keys panel.
    const hashed = ctx.principal.role === 'viewer';
    if (!hashed) return { ...answer, hashed };
    const hash = hotKeyHasher(ctx.statesvc?.masterKey);
    const scope = stateKeyScope(input.namespace, input.keyspace);
    return {
      ...answer,
      hashed,
      changes: { ...answer.changes, recent: answer.changes.recent.map((c) => ({ ...c, key: hash(scope, c.key) })) },
      fences: { ...answer.fences, newest: answer.fences.newest.map((f) => ({ ...f, key: hash(scope, f.key) })) },
    };
  });

import { effectiveKeyspace, keyspaceOwner, type OrreryFunction } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { hotKeyHasher, stateKeyScope, stickyKeyScope } from '../../hot-keys/hot-key-id.ts';
import { readStateHotKeys, readStickyHotKeys } from '../../hot-keys/read-hot-keys.ts';
import { protectedProcedure } from '../../trpc.ts';
import { HotKeysInput } from './hot-keys.schema.ts';

export const hotKeys = protectedProcedure(
  'viewer',
  "A keyspace's hottest keys now: its state calls (statesvc) and its Function's sticky requests (every router replica, summed), with rate, share, error bound and the sticky owner's saturation. Viewers get keyed hashes instead of keys.",
)
  .input(HotKeysInput)
  .query(async ({ ctx, input }) => {
    // Operators and admins see the keys; a viewer sees stable ids that cannot be reversed by guessing.
    const hashed = ctx.principal.role === 'viewer';
    const hash = hotKeyHasher(ctx.statesvc?.masterKey);
    const fns = (await storeCall(() => ctx.store.list('Function', { namespace: input.namespace }))).items as OrreryFunction[];
    const declaring = fns.filter((f) => f.spec.state && effectiveKeyspace(f.metadata.name, f.spec.state) === input.keyspace);
    const ownerName = keyspaceOwner(declaring.map((f) => ({ name: f.metadata.name, creationTimestamp: f.metadata.creationTimestamp })))?.name;
    const fn = declaring.find((f) => f.metadata.name === ownerName);
    const sticky = fn?.spec.state?.sticky;

    const [state, routers] = await Promise.all([
      readStateHotKeys(ctx, { namespace: input.namespace, keyspace: input.keyspace, limit: input.limit }),
      sticky ? readStickyHotKeys(ctx, { namespace: input.namespace, function: fn.metadata.name, limit: input.limit }) : undefined,
    ]);
    const stateScope = stateKeyScope(input.namespace, input.keyspace);
    const ks = state.ok ? state.answer.keyspaces.find((k) => k.namespace === input.namespace && k.keyspace === input.keyspace) : undefined;
    const stickyFn = routers?.functions.find((f) => f.namespace === input.namespace && f.function === fn?.metadata.name);
    const stickyScope = stickyKeyScope(input.namespace, fn?.metadata.name ?? '');

    return {
      namespace: input.namespace,
      keyspace: input.keyspace,
      function: fn?.metadata.name ?? null,
      hashed,
      state: {
        ok: state.ok,
        error: state.ok ? null : state.error,
        halfLifeSeconds: state.ok ? state.answer.halfLifeSeconds : null,
        capacity: state.ok ? state.answer.capacity : null,
        rate: ks?.rate ?? 0,
        boundRate: ks?.boundRate ?? 0,
        keys: (ks?.keys ?? []).map((k) => ({ ...k, key: hashed ? hash(stateScope, k.key) : k.key })),
      },
      sticky:
        sticky && routers
          ? {
              source: sticky.source,
              name: sticky.name,
              halfLifeSeconds: routers.halfLifeSeconds,
              rate: stickyFn?.rate ?? 0,
              boundRate: stickyFn?.boundRate ?? 0,
              keys: (stickyFn?.keys ?? []).map((k) => ({
                ...k,
                key: hashed ? hash(stickyScope, k.key) : k.key,
                // In flight on the owner against its limit, now (0 = unlimited: never saturated).
                ownerSaturation: k.owner && k.owner.concurrency > 0 ? Math.min(1, k.owner.inflight / k.owner.concurrency) : null,
              })),
              replicas: routers.replicas,
            }
          : null,
    };
  });

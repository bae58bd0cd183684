import { sql } from 'drizzle-orm';
import { keyspaceRollups } from '@orrery/db';
import { StateNamespacesResponseSchema } from '@orrery/spec';
import { statesvcAdminGet } from '../clients/statesvc-admin.ts';
import type { ApiServices } from '../context.ts';
import { minuteOf } from './counter-delta.ts';

/**
 * Samples statesvc's per-namespace usage and stores keys/bytes per keyspace for the current
 * minute (a gauge: the last sample of the minute wins), for `state.history`.
 */
export async function collectKeyspaceRollup(services: ApiServices): Promise<number> {
  const minute = minuteOf(services.now?.() ?? new Date());
  const r = await statesvcAdminGet(services, '/v1/admin/namespaces', StateNamespacesResponseSchema);
  let n = 0;
  for (const ns of r.namespaces) {
    for (const ks of ns.keyspaces) {
      await services.db.db
        .insert(keyspaceRollups)
        .values({ minute, namespace: ns.namespace, keyspace: ks.keyspace, keys: ks.keys, bytes: ks.bytes })
        .onConflictDoUpdate({
          target: [keyspaceRollups.namespace, keyspaceRollups.keyspace, keyspaceRollups.minute],
          set: { keys: sql`excluded.keys`, bytes: sql`excluded.bytes` },
        });
      n++;
    }
  }
  return n;
}

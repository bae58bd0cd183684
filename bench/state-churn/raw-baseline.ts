/**
 * The state-call baseline: the statements statesvc's Postgres driver runs for a GET and a CAS,
 * issued straight from this process through postgres.js (named prepared statements, as the
 * driver does) — no HTTP, no token check, no worker. The text is copied from
 * packages/statestore/src/postgres-driver.ts (GET_ENTRY, SET_ENTRY); if the driver's statements
 * change, change them here too, or the ratio compares different work.
 */
import postgres from 'postgres';
import { keyPicker } from './key-picker.ts';

const GET_ENTRY =
  'select value, version, expires_at from state_entries where namespace = $1 and keyspace = $2 and key = $3 and (expires_at is null or expires_at > $4)';
const SET_ENTRY = 'select result, new_version from orrery_state_set($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';

export interface RawSamples {
  get: number[];
  cas: number[];
  errors: number;
  /** Every read-then-CAS done, the warm-up's included (what the CPU readings cover). */
  iterations: number;
}

export class RawBaseline {
  private readonly sql: postgres.Sql;

  constructor(
    url: string,
    pool: number,
    private readonly scope: { namespace: string; keyspace: string; maxKeys: number },
  ) {
    this.sql = postgres(url, { max: pool, onnotice: () => {}, prepare: true });
  }

  private get(key: string) {
    return this.sql.unsafe<Array<{ value: string; version: string }>>(GET_ENTRY, [this.scope.namespace, this.scope.keyspace, key, Date.now()], { prepare: true });
  }

  /** What statesvc runs for a CAS (`ifVersion` = the expected version; 0 = create-only). */
  private set(key: string, value: string, ifVersion: number | null) {
    const s = this.scope;
    return this.sql.unsafe<Array<{ result: string; new_version: string | null }>>(
      SET_ENTRY,
      [s.namespace, s.keyspace, key, value, Buffer.byteLength(value), null, ifVersion, s.maxKeys, 0, Date.now()],
      { prepare: true },
    );
  }

  /** Creates every key (unmeasured), so the measured writes overwrite, as the routed phases do. */
  async prefill(keys: number): Promise<void> {
    for (let i = 0; i < keys; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, keys - i) }, (_, j) => this.set(`k${i + j}`, '0', null)));
    }
  }

  /** `concurrency` loops of read-then-CAS, like a handler whose cache missed. */
  async run(durationMs: number, concurrency: number, keys: number, seed: number, warmupMs = 300): Promise<RawSamples> {
    const out: RawSamples = { get: [], cas: [], errors: 0, iterations: 0 };
    const start = performance.now();
    const measureFrom = start + warmupMs;
    const end = measureFrom + durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, loop) => {
        const pick = keyPicker(keys, seed * 1000 + loop);
        while (performance.now() < end) {
          const key = pick();
          try {
            const t0 = performance.now();
            const rows = await this.get(key);
            const t1 = performance.now();
            const version = Number(rows[0]?.version ?? 0);
            const next = String(Number(rows[0]?.value ?? 0) + 1);
            await this.set(key, next, version);
            const t2 = performance.now();
            out.iterations++;
            if (t0 >= measureFrom) {
              out.get.push(t1 - t0);
              out.cas.push(t2 - t1);
            }
          } catch {
            out.errors++;
          }
        }
      }),
    );
    return out;
  }

  close(): Promise<void> {
    return this.sql.end({ timeout: 5 });
  }
}

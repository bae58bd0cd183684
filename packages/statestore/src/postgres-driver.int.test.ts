import { connect, createTestDatabase, migrate } from '@orrery/db';
import { describeConformance } from './conformance-suite.ts';
import { DEFAULT_PIPELINE_DEPTH } from './open-driver.ts';
import { PostgresDriver } from './postgres-driver.ts';

describeConformance('postgres on PGlite', async () => {
  const clock = { now: 1_700_000_000_000 };
  const conn = connect({ url: '' });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now });
  return { driver, clock, cleanup: () => driver.close() };
});

describeConformance('postgres on Postgres', async () => {
  const clock = { now: 1_700_000_000_000 };
  const tdb = await createTestDatabase();
  const conn = connect({ url: tdb.url });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now });
  // A second statesvc replica on the same database (the fencing contract's cross-replica checks).
  const peer = new PostgresDriver(connect({ url: tdb.url }), { now: () => clock.now });
  return {
    driver,
    clock,
    peer,
    cleanup: async () => {
      await Promise.all([driver.close(), peer.close()]);
      await tdb.drop();
    },
  };
});

// The production shape (openDriver): single statements on the LIFO statement pool, transactions on conn's pool.
describeConformance('postgres on Postgres with a statement pool', async () => {
  const clock = { now: 1_700_000_000_000 };
  const tdb = await createTestDatabase();
  const conn = connect({ url: tdb.url, max: 3 });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now, statementConnections: 4, pipelineDepth: DEFAULT_PIPELINE_DEPTH });
  return {
    driver,
    clock,
    cleanup: async () => {
      await driver.close();
      await tdb.drop();
    },
  };
});

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
  return {
    driver,
    clock,
    cleanup: async () => {
      await driver.close();
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

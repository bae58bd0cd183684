import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The shared test server (trust auth); TEST_POSTGRES_URL overrides. */
export const TEST_SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh database `orrery_<random>` on the shared server, so engineers and test files never
 * see each other's rows. `drop()` terminates leftover sessions and removes it.
 */
export async function createTestDatabase(prefix = 'orrery'): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(TEST_SERVER_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const a = postgres(TEST_SERVER_URL, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}

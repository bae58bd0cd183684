import { Redis } from 'ioredis';

/**
 * Removes the keys under a test platform's `--redis-key-prefix` from the local Redis. The routers'
 * shared tables expire on their own; removing them at once keeps a busy Redis small.
 */
export async function removeRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const k of await redis.keys(`${prefix}*`)) await redis.del(k);
  } catch {
    // no Redis: nothing was written
  } finally {
    redis.disconnect();
  }
}

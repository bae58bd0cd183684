/** Test harness: the real router over an in-memory PGlite store and audit tables. */
import { asc } from 'drizzle-orm';
import { auditLog, connect, type Connection } from '@orrery/db';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import type { ApiContext, ApiServices, Role } from '../context.ts';
import { appRouter } from '../routers/_app.ts';
import { createCallerFactory } from '../trpc.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const createCaller = createCallerFactory(appRouter);

export interface Harness {
  conn: Connection;
  store: ResourceStore;
  services: ApiServices;
  cookies: string[];
  /** A caller acting as `role` (undefined = no session). */
  as(role: Role | undefined, who?: string): ReturnType<typeof createCaller>;
  audit(): Promise<Array<typeof auditLog.$inferSelect>>;
  close(): Promise<void>;
}

export async function createHarness(extra: Partial<ApiServices> = {}, conn: Connection = connect({ url: '' })): Promise<Harness> {
  const store = await createLocalStore(conn);
  const services: ApiServices = { store, db: conn, adminToken: ADMIN_TOKEN, ...extra };
  const cookies: string[] = [];
  return {
    conn,
    store,
    services,
    cookies,
    as(role, who) {
      const ctx: ApiContext = {
        ...services,
        principal: role ? { who: who ?? `${role}-user`, role, via: 'session' } : undefined,
        secure: false,
        setCookie: (v) => cookies.push(v),
      };
      return createCaller(ctx);
    },
    audit: () => conn.db.select().from(auditLog).orderBy(asc(auditLog.id)),
    async close() {
      await store.close();
      await conn.close();
    },
  };
}

/** The tRPC error a promise rejected with (fails the test when it resolved). */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; cause?: unknown }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected the call to fail');
}

export const fnManifest = (name: string, inline = 'export default async () => new Response("hi")', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default' },
  spec: { template: { source: { inline } }, ...extra },
});

export const revisionManifest = (fn: string, n: number) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Revision',
  metadata: { name: `${fn}-${String(n).padStart(5, '0')}`, namespace: 'default', labels: { 'orrery.dev/function': fn } },
  spec: { function: fn, template: { source: { inline: `export default async () => new Response("${n}")` } } },
});

/** StateSync `default/routers` (every router replica, local Redis) with the given status. */
export async function applyRouterStateSync(h: Harness, status: Record<string, unknown>): Promise<void> {
  await h.store.apply({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'StateSync',
    metadata: { name: 'routers', namespace: 'default' },
    spec: { target: { component: 'router' }, redis: { url: 'redis://127.0.0.1:6379' } },
  });
  await h.store.updateStatus('StateSync', 'default', 'routers', status);
}

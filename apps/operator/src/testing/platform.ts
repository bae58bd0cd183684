/**
 * Integration-test plumbing for the scaling tests: a real orrery-operator, orrery-router (routes
 * from a file the test writes, endpoints from the operator's endpoints file) and, when asked,
 * orrery-statesvc with a master key. `stop()` ends every process it started.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { type ResourceStore, createHttpStore } from '@orrery/store';
import { type SpawnedServer, spawnServer, until } from './spawn-server.ts';

const APPS = join(import.meta.dirname, '..', '..', '..');
export const OPERATOR_BIN = join(APPS, 'operator', 'bin', 'orrery-operator.mjs');
export const ROUTER_BIN = join(APPS, 'router', 'bin', 'orrery-router.mjs');
export const STATESVC_BIN = join(APPS, 'statesvc', 'bin', 'orrery-statesvc.mjs');

export type Endpoint = { namespace: string; function: string; revision: string; address: string; ready: boolean };

export interface Platform {
  dir: string;
  op: SpawnedServer;
  store: ResourceStore;
  routerUrl: string;
  router: SpawnedServer;
  stateUrl?: string;
  /** The store token the operator checks (given, or made up for the test). */
  storeToken: string;
  endpoints(): Endpoint[];
  /** Addresses of one function's ready endpoints as the router sees them. */
  routerEndpoints(fn: string, namespace?: string): Promise<string[]>;
  /** Copy Functions and Revisions from the store into the router's routes file. */
  publishRoutes(): Promise<void>;
  revision(name: string, namespace?: string): Promise<Revision | undefined>;
  stop(): Promise<void>;
}

export async function startPlatform(
  o: {
    operatorArgs?: string[];
    /** node flags of the operator process (bench/coldstart passes the local platform's). */
    operatorNodeFlags?: readonly string[];
    routerArgs?: string[];
    keyspaces?: Array<{ namespace: string; keyspace: string }>;
    /** Development mode: statesvc --insecure-pass-through and an operator without a master key. */
    statePassThrough?: boolean;
    /** Store token (also guards /v1/autoscaler and /v1/executor). */ storeToken?: string;
  } = {},
): Promise<Platform> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-scale-'));
  const started: SpawnedServer[] = [];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const endpointsFile = join(dir, 'endpoints.yaml');
    const routesFile = join(dir, 'routes.yaml');
    writeFileSync(endpointsFile, '[]\n');
    writeFileSync(routesFile, '');
    let stateUrl: string | undefined;
    const extra: string[] = [];
    if (o.keyspaces) {
      const keyFile = join(dir, 'master.key');
      writeFileSync(keyFile, Buffer.alloc(32, 0x3c).toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), stringify(o.keyspaces));
      const auth = o.statePassThrough ? ['--insecure-pass-through'] : ['--master-key-file', keyFile];
      const svc = await spawnServer(STATESVC_BIN, ['--port', '0', ...auth, '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
      started.push(svc);
      stateUrl = svc.url;
      extra.push('--state-url', stateUrl, ...(o.statePassThrough ? [] : ['--master-key-file', keyFile]));
    }
    // The operator always wants a store token (there is no token-less loopback store any more).
    const storeToken = o.storeToken ?? `test-store-${randomBytes(12).toString('hex')}`;
    writeFileSync(join(dir, 'store.token'), storeToken, { mode: 0o600 });
    const tokenArgs = ['--store-token-file', join(dir, 'store.token')];
    const op = await spawnServer(OPERATOR_BIN, ['--port', '0', '--data-dir', join(dir, 'op'), '--endpoints-file', endpointsFile, '--resync-seconds', '5', ...tokenArgs, ...extra, ...(o.operatorArgs ?? [])], {}, undefined, o.operatorNodeFlags);
    started.push(op);
    const router = await spawnServer(ROUTER_BIN, ['--port', '0', '--admin-port', '0', '--routes-file', routesFile, '--endpoints-file', endpointsFile, '--autoscaler-url', op.url, '--executor-url', op.url, ...tokenArgs, ...(o.routerArgs ?? [])]);
    started.push(router);
    const store = createHttpStore(op.url, { token: storeToken });
    return {
      dir,
      op,
      store,
      routerUrl: router.url,
      router,
      stateUrl,
      storeToken,
      endpoints: () => {
        try {
          return (parse(readFileSync(endpointsFile, 'utf8')) as Endpoint[] | null) ?? [];
        } catch {
          return [];
        }
      },
      routerEndpoints: async (fn, namespace = 'default') => {
        const admin = /admin (http:\/\/\S+)/.exec(router.output())![1]!;
        const stats = (await (await fetch(`${admin}/v1/stats`)).json()) as { endpoints: unknown };
        const list = stats.endpoints as Array<{ revision: string; address: string; ready: boolean }>;
        return list.filter((e) => e.revision.startsWith(`${namespace}/${fn}-`) && e.ready).map((e) => e.address);
      },
      publishRoutes: async () => {
        const fns = (await store.list('Function')).items as OrreryFunction[];
        const revs = (await store.list('Revision')).items as Revision[];
        const docs = [...fns, ...revs].map((r) => stringify({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata.name, namespace: r.metadata.namespace, labels: r.metadata.labels }, spec: r.spec }));
        const loads = () => router.output().split('routes loaded:').length;
        const before = loads();
        writeFileSync(`${routesFile}.tmp`, docs.join('---\n'));
        renameSync(`${routesFile}.tmp`, routesFile);
        // The router polls the file: wait until it says it reloaded.
        await until(loads, (n) => n > before, 20_000, 'router reloaded the routes');
      },
      revision: async (name, namespace = 'default') => (await store.get('Revision', namespace, name)) as Revision | undefined,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits for a revision's Ready condition. */
export async function revisionReady(p: Platform, name: string, timeoutMs = 60_000): Promise<Revision> {
  return until(() => p.revision(name), (r) => r?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True', timeoutMs, `${name} Ready`) as Promise<Revision>;
}

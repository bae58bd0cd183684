import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createHttpStore } from '@orrery/store';
import { pidAlive } from '../platform/pid-alive.ts';
import { readPlatformInfo } from '../platform/platform-file.ts';
import { processUsage } from '../platform/processes.ts';
import { redisAnswers } from '../platform/probe-redis.ts';
import {
  type ComponentHealth,
  type ResourceReport,
  emptyReport,
  environmentRows,
  functionRows,
  registryClusterRows,
  renderStatus,
  revisionRows,
  stateSyncRows,
} from '../platform/status-report.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'health of every local platform component and the resources in the store';

const HELP = `usage: orrery status [--data-dir .orrery] [--json]

Reads <data-dir>/platform.json (written by \`orrery up\`), asks each component's /healthz (with
its pid, CPU time and resident memory) and lists the resources with their readiness: Functions
(latest revision, traffic), Revisions (scale), Environments (warm pool), RegistryClusters
(leader, members, voters and learners) and StateSyncs (per replica). Exits 1 when anything is
unhealthy.`;

async function healthy(url: string): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return { ok: res.ok, detail: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

/** The flags, exported for `orrery completion`. */
export const options = { 'data-dir': { type: 'string', default: '.orrery' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('status', HELP, argv, {
    options,
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const dataDir = resolve(values['data-dir']);
  const info = readPlatformInfo(dataDir);
  if (!info || !pidAlive(info.pids.supervisor)) {
    console.log(`orrery status: the platform is not running for ${dataDir} — start it with \`npm start\` (or \`orrery up\`)`);
    return 1;
  }
  const components: ComponentHealth[] = await Promise.all(
    info.components.map(async (c): Promise<ComponentHealth> => {
      const usage = c.pid !== undefined ? processUsage(c.pid) : undefined;
      const proc = c.pid !== undefined && usage ? { pid: c.pid, cpuSeconds: usage.cpuSeconds, rssBytes: usage.rssBytes } : {};
      if (c.state === 'degraded') return { name: c.name, state: 'Degraded', detail: c.reason ?? '', ...proc };
      if (c.name === 'redis' && c.url) {
        const { hostname, port } = new URL(c.url);
        // platform.json keeps the URL without its password: a Redis that wants one still answers.
        const ok = await redisAnswers(hostname, Number(port || 6379), 1_000, undefined, { authRequiredCounts: true });
        return { name: c.name, state: ok ? 'Ready' : 'Unhealthy', detail: ok ? c.url : `${c.url}: no PONG`, ...proc };
      }
      if (!c.healthUrl) return { name: c.name, state: 'Ready', detail: c.url ?? '', ...proc };
      const h = await healthy(c.healthUrl);
      return { name: c.name, state: h.ok ? 'Ready' : 'Unhealthy', detail: h.ok ? (c.url ?? c.healthUrl) : `${c.healthUrl}: ${h.detail}`, ...proc };
    }),
  );
  let resources: ResourceReport = emptyReport();
  let storeError: string | undefined;
  const store = createHttpStore(info.storeUrl, { token: info.storeTokenFile && existsSync(info.storeTokenFile) ? readFileSync(info.storeTokenFile, 'utf8').trim() : undefined });
  try {
    const [functions, revisions, environments, registryClusters, stateSyncs] = await Promise.all(
      (['Function', 'Revision', 'Environment', 'RegistryCluster', 'StateSync'] as const).map(async (kind) => (await store.list(kind)).items),
    );
    resources = {
      functions: functionRows(functions!),
      revisions: revisionRows(revisions!),
      environments: environmentRows(environments!),
      registryClusters: registryClusterRows(registryClusters!),
      stateSyncs: stateSyncRows(stateSyncs!),
    };
  } catch (err) {
    storeError = (err as Error).message;
  } finally {
    await store.close();
  }
  if (values.json) console.log(JSON.stringify({ components, ...resources, storeError }, null, 2));
  else console.log(renderStatus(components, resources, storeError));
  return components.some((c) => c.state === 'Unhealthy') || storeError ? 1 : 0;
}

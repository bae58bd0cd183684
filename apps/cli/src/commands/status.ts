import { resolve } from 'node:path';
import { createHttpStore } from '@orrery/store';
import { pidAlive } from '../platform/pid-alive.ts';
import { readPlatformInfo } from '../platform/platform-file.ts';
import { redisAnswers } from '../platform/probe-redis.ts';
import { type ComponentHealth, type FunctionRow, functionRows, renderStatus } from '../platform/status-report.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'health of every local platform component and the Functions in the store';

const HELP = `usage: orrery status [--data-dir .orrery] [--json]

Reads <data-dir>/platform.json (written by \`orrery up\`), asks each component's /healthz and lists
the Functions with their Ready condition and latest revision. Exits 1 when anything is unhealthy.`;

async function healthy(url: string): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return { ok: res.ok, detail: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('status', HELP, argv, {
    options: { 'data-dir': { type: 'string', default: '.orrery' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
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
    info.components.map(async (c) => {
      if (c.state === 'degraded') return { name: c.name, state: 'Degraded' as const, detail: c.reason ?? '' };
      if (c.name === 'redis' && c.url) {
        const { hostname, port } = new URL(c.url);
        const ok = await redisAnswers(hostname, Number(port || 6379));
        return { name: c.name, state: ok ? ('Ready' as const) : ('Unhealthy' as const), detail: ok ? c.url : `${c.url}: no PONG` };
      }
      if (!c.healthUrl) return { name: c.name, state: 'Ready' as const, detail: c.url ?? '' };
      const h = await healthy(c.healthUrl);
      return { name: c.name, state: h.ok ? ('Ready' as const) : ('Unhealthy' as const), detail: h.ok ? (c.url ?? c.healthUrl) : `${c.healthUrl}: ${h.detail}` };
    }),
  );
  let functions: FunctionRow[] = [];
  let storeError: string | undefined;
  const store = createHttpStore(info.storeUrl);
  try {
    functions = functionRows((await store.list('Function')).items);
  } catch (err) {
    storeError = (err as Error).message;
  } finally {
    await store.close();
  }
  if (values.json) console.log(JSON.stringify({ components, functions, storeError }, null, 2));
  else console.log(renderStatus(components, functions, storeError));
  return components.some((c) => c.state === 'Unhealthy') || storeError ? 1 : 0;
}

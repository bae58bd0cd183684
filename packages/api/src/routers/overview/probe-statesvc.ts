import type { ApiServices } from '../../context.ts';
import { fetchJson } from '../../clients/fetch-json.ts';
import type { HealthVerdict } from '../../health/health-from-conditions.ts';

/** statesvc's `/healthz` within the upstream timeout: not configured → Unknown, no answer or not 200 → Degraded. Never throws. */
export async function probeStatesvc(services: ApiServices): Promise<HealthVerdict> {
  if (!services.statesvc) return { health: 'Unknown', message: 'the API was started without a statesvc URL' };
  const timeout = services.upstreamTimeoutMs ?? 3000;
  try {
    const a = await fetchJson('statesvc', new URL('/healthz', services.statesvc.url).toString(), timeout);
    if (a.status === 200) return { health: 'Healthy', message: `${services.statesvc.url} answers /healthz` };
    return { health: 'Degraded', message: `${services.statesvc.url}/healthz answered ${a.status}` };
  } catch (err) {
    return { health: 'Degraded', message: (err as Error).message };
  }
}

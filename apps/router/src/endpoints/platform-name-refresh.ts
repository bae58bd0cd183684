/**
 * The platform names in the endpoint guard (`--platform-endpoint`, the registry, store and
 * operator URLs) are resolved at start and again every 30 s: a recreated Service gets a new
 * ClusterIP. After each round the caller checks the registry's endpoints again.
 */
import { lookup } from 'node:dns/promises';
import type { EndpointGuard } from './endpoint-guard.ts';

const REFRESH_MS = 30_000;

export function refreshPlatformNames(guard: EndpointGuard, onResolved: () => void): { stop(): void } {
  const resolve = (): Promise<void> => guard.resolveNames(async (name) => (await lookup(name, { all: true })).map((a) => a.address)).then(onResolved);
  void resolve();
  const timer = setInterval(() => void resolve(), REFRESH_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

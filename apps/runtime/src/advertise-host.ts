import { networkInterfaces } from 'node:os';

/**
 * The address other machines should use to reach this worker: the bind host, unless it is
 * a wildcard, in which case POD_IP (Kubernetes downward API) or the first external IPv4.
 */
export function advertiseHost(bindHost: string, env: NodeJS.ProcessEnv = process.env): string {
  if (bindHost !== '0.0.0.0' && bindHost !== '::' && bindHost !== '') return bindHost;
  if (env.POD_IP) return env.POD_IP;
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

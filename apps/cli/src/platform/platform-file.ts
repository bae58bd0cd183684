/**
 * `<data-dir>/platform.json`: what `orrery up` is running, for `orrery down`, `orrery status`
 * and any other CLI command that needs the local platform's URLs.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface ComponentInfo {
  name: string;
  /** ready | degraded | stopped */
  state: 'ready' | 'degraded' | 'stopped';
  url?: string;
  adminUrl?: string;
  /** GET this for health (`orrery status`); absent = nothing to ask. */
  healthUrl?: string;
  /** Why a component is degraded (missing binary, start failure, …). */
  reason?: string;
  pid?: number;
}

export interface PlatformInfo {
  storeUrl: string;
  routerUrls: string[];
  registryUrl?: string;
  statesvcUrl?: string;
  /** The console (and, through its /trpc route, the admin API) when it runs. */
  consoleUrl?: string;
  dataDir: string;
  /** The store's bearer token file (the CLI reads it; the token itself is never in this file). */
  storeTokenFile?: string;
  /** The supervisor first, then every child it started. */
  pids: { supervisor: number } & Record<string, number>;
  components: ComponentInfo[];
  stateDriver: 'memory' | 'postgres';
  startedAt: string;
}

export const platformFile = (dataDir: string) => join(resolve(dataDir), 'platform.json');

export function writePlatformInfo(info: PlatformInfo): void {
  const path = platformFile(info.dataDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(`${path}.tmp`, path); // readers never see half a file
}

export function readPlatformInfo(dataDir: string): PlatformInfo | undefined {
  try {
    return JSON.parse(readFileSync(platformFile(dataDir), 'utf8')) as PlatformInfo;
  } catch {
    return undefined;
  }
}

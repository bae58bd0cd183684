/**
 * etcdctl and etcdutl at the test cluster's etcd version, built once per machine by
 * scripts/etcd-client-tools.sh (cold: under a minute with the Go module cache warm, so call it
 * from a beforeAll). The official etcd image ships both beside etcd.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './chart-files.ts';

let dir: string | undefined;

export function etcdClientTools(): { etcdctl: string; etcdutl: string } {
  dir ??= execFileSync('bash', [join(repoRoot, 'scripts', 'etcd-client-tools.sh'), '--dir'], { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim();
  return { etcdctl: join(dir, 'etcdctl'), etcdutl: join(dir, 'etcdutl') };
}

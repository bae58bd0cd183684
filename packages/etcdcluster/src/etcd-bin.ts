import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * The etcd the fault tests run: `$ETCD_BIN`, else the etcd 3.7 that scripts/k8s-tools.sh built
 * for the Kubernetes test cluster, else the distribution's `/usr/bin/etcd` (3.4 on Debian, whose
 * recovery behaviour and messages differ: the tests expect 3.5 or later).
 */
export function preferredEtcdBin(): string {
  if (process.env.ETCD_BIN) return process.env.ETCD_BIN;
  try {
    const dir = execFileSync('bash', [join(REPO_ROOT, 'scripts', 'k8s-tools.sh'), '--bin-dir'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    if (dir && existsSync(join(dir, 'etcd'))) return join(dir, 'etcd');
  } catch {
    /* not built */
  }
  return '/usr/bin/etcd';
}

/** `[major, minor]` of an etcd binary (`etcd --version`). */
export function etcdVersion(bin: string): [number, number] {
  const out = execFileSync(bin, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const m = /etcd Version: (\d+)\.(\d+)/.exec(out);
  if (!m) throw new Error(`cannot read the version of ${bin}: ${out.slice(0, 200)}`);
  return [Number(m[1]), Number(m[2])];
}

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (this file is packages/kube-testenv/src/tool-paths.ts). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * The directory holding kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, etcd
 * and helm, as built by scripts/k8s-tools.sh (or `ORRERY_K8S_BIN_DIR`). Throws a message that
 * says how to build them when the cache is missing or half built.
 */
export function k8sBinDir(): string {
  const fromEnv = process.env.ORRERY_K8S_BIN_DIR;
  if (fromEnv) {
    for (const b of ['kube-apiserver', 'etcd', 'helm']) {
      if (!existsSync(join(fromEnv, b))) throw new Error(`ORRERY_K8S_BIN_DIR=${fromEnv} has no ${b}`);
    }
    return fromEnv;
  }
  try {
    return execFileSync('bash', [join(REPO_ROOT, 'scripts', 'k8s-tools.sh'), '--bin-dir'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    throw new Error(
      'the Kubernetes binaries are not built yet (or the cache is incomplete): run `bash scripts/k8s-tools.sh` ' +
        '(npm test does it through scripts/services.sh; a cold build takes 20-40 minutes)',
    );
  }
}

/** helm from the same cache. */
export const helmBin = (): string => join(k8sBinDir(), 'helm');

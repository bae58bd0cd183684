/**
 * kstatus's verdict on objects, from the real sigs.k8s.io/cli-utils code (tools/kstatus, built once
 * per machine by scripts/kstatus-tool.sh): what Flux and kpt would decide about an applied object.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');

export interface KstatusVerdict {
  kind: string;
  namespace?: string;
  name: string;
  /** InProgress | Failed | Current | Terminating | NotFound | Unknown */
  status: string;
  message: string;
}

let bin: string | undefined;

/** The tool's path; builds it on first use (cold: about 2 minutes, so call it from a beforeAll). */
export function kstatusBin(): string {
  bin ??= execFileSync('bash', [resolve(REPO_ROOT, 'scripts', 'kstatus-tool.sh'), '--bin'], { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim();
  return bin;
}

/** One verdict per object, in order. */
export function kstatus(objects: readonly object[]): KstatusVerdict[] {
  const out = execFileSync(kstatusBin(), [], { input: JSON.stringify(objects), stdio: ['pipe', 'pipe', 'pipe'] });
  return JSON.parse(out.toString()) as KstatusVerdict[];
}

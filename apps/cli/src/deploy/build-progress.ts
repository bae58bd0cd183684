/**
 * The package build's part of `orrery deploy`'s progress (docs/packages.md): the build of the
 * archive this deploy sent, from the Function's status.build. Pure.
 */
import type { OrreryFunction } from '@orrery/spec';

export type BuildProgress =
  | { phase: 'waiting'; line: string }
  | { phase: 'building'; line: string }
  | { phase: 'built'; line: string }
  | { phase: 'failed'; line: string; log?: string };

export function buildProgress(fn: OrreryFunction, sha256: string): BuildProgress {
  const b = fn.status?.build;
  const short = sha256.slice(0, 12);
  if (!b || b.sha256 !== sha256) return { phase: 'waiting', line: `package ${short}: waiting for the operator` };
  const why = b.message ? `: ${b.message}` : '';
  switch (b.phase) {
    case 'Succeeded': {
      const size = b.sizeBytes !== undefined ? `, ${Math.round(b.sizeBytes / 1024)} KiB` : '';
      return { phase: 'built', line: `package ${short}: built (${b.dependencies ?? 0} dependencies${size})` };
    }
    case 'Failed':
      return { phase: 'failed', line: `package ${short}: build failed (${b.reason})${why}`, ...(b.log ? { log: b.log } : {}) };
    case 'Building':
      return { phase: 'building', line: `package ${short}: building${b.builder ? ` with ${b.builder.split(' ').slice(0, 2).join(' ')}` : ''}` };
    default:
      return { phase: 'waiting', line: `package ${short}: ${b.reason}${why}` };
  }
}

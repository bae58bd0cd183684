/**
 * The Build section of `orrery describe function` (docs/packages.md): the package build of the
 * Function's current template from status.build — phase, reason, duration, dependencies, size,
 * and the log's tail when it failed. Pure.
 */
import type { OrreryFunction } from '@orrery/spec';

function duration(startedAt: string | undefined, finishedAt: string | undefined): string | undefined {
  if (!startedAt || !finishedAt) return undefined;
  const ms = Date.parse(finishedAt) - Date.parse(startedAt);
  if (!(ms >= 0)) return undefined;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The lines (none for a Function without a package). */
export function buildLines(fn: OrreryFunction): string[] {
  const pkg = fn.spec.template.source.package;
  if (!pkg) return [];
  const b = fn.status?.build;
  const out = ['', 'Build:'];
  if (!b || b.sha256 !== pkg.sha256) {
    out.push(`  package ${pkg.sha256.slice(0, 12)}: <not looked at yet by the operator>`);
    return out;
  }
  const took = duration(b.startedAt, b.finishedAt);
  out.push(
    `  Package:      ${b.sha256}${pkg.main ? ` (main ${pkg.main})` : ''}`,
    `  Phase:        ${b.phase} (${b.reason})${took ? `, took ${took}` : ''}`,
    `  Builder:      ${b.builder}`,
  );
  if (b.message) out.push(`  Message:      ${b.message}`);
  if (b.dependencies !== undefined || b.sizeBytes !== undefined) {
    out.push(`  Installed:    ${b.dependencies ?? 0} dependencies${b.sizeBytes !== undefined ? `, ${size(b.sizeBytes)} on disk` : ''}`);
  }
  if (b.log && b.phase === 'Failed') out.push('  Log (tail):', ...b.log.trimEnd().split('\n').map((l) => `    ${l}`));
  return out;
}

/**
 * `status.build` as plain data (docs/packages.md): what each step of a package build writes,
 * the same on both backends. Pure.
 */
import type { BuildReason, BuildStatus } from '@orrery/spec';

/** Which build: the archive, the built package's content address, and the builder that makes it. */
export interface BuildIdentity {
  sha256: string;
  key: string;
  builder: string;
}

/** How a finished build came out (the builder's outcome, plus the log's tail). */
export type FinishedBuild =
  | { ok: true; dependencies: number; sizeBytes: number; main: string }
  | { ok: false; reason: BuildReason; message: string };

export function queuedBuild(id: BuildIdentity): BuildStatus {
  return { ...id, phase: 'Pending', reason: 'Queued', message: 'waiting for a builder' };
}

export function archiveMissingBuild(id: BuildIdentity, message: string): BuildStatus {
  return { ...id, phase: 'Pending', reason: 'ArchiveMissing', message };
}

export function buildingBuild(id: BuildIdentity, startedAt: Date): BuildStatus {
  return { ...id, phase: 'Building', reason: 'Building', message: 'installing dependencies', startedAt: startedAt.toISOString() };
}

export function finishedBuild(id: BuildIdentity, outcome: FinishedBuild, log: string, startedAt: Date, finishedAt: Date): BuildStatus {
  const times = { startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString() };
  const tail = log ? { log } : {};
  if (outcome.ok) {
    return { ...id, phase: 'Succeeded', reason: 'Built', message: `built with ${outcome.dependencies} dependencies; loads ${outcome.main}`, ...times, dependencies: outcome.dependencies, sizeBytes: outcome.sizeBytes, ...tail };
  }
  return { ...id, phase: 'Failed', reason: outcome.reason, message: outcome.message, ...times, ...tail };
}

/** Whether two build statuses say the same (so an unchanged one is not written again). */
export function sameBuild(a: BuildStatus | undefined, b: BuildStatus | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * A build Job (and its pod) → `status.build`. Pure. The Job's own conditions decide the phase
 * (Kubernetes' word, not the build's: the pod runs the package's install scripts, so what it
 * writes is untrusted and only fills in details — counts, a reason from the known list, the log's
 * tail — each checked and capped).
 */
import { BUILD_REASONS, type BuildReason, type BuildStatus, MAX_BUILD_LOG_BYTES } from '@orrery/spec';
import { BUILD_RESULT_ANNOTATION } from './package-build-names.ts';

/** The parts of a Job the mapping reads. */
export interface BuildJobView {
  metadata: { annotations?: Record<string, string> };
  status?: {
    active?: number;
    startTime?: string;
    completionTime?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }>;
  };
}

/** How one container of the build pod ended (pod.status.{init,}containerStatuses[].state.terminated). */
export interface TerminatedView {
  exitCode: number;
  message?: string;
  finishedAt?: string;
}

export interface BuildPodView {
  /** The `fetch` init container (package.url). */
  fetch?: TerminatedView;
  build?: TerminatedView;
  /** A longer log tail than the termination message holds (pods/log), when the API server could serve one. */
  log?: string;
}

export interface BuildIdentity {
  sha256: string;
  key: string;
  /** `node orrery/builder:0.1.0`. */
  builder: string;
}

export interface BuildOutcome {
  status: BuildStatus;
  /** The Job has finished: the outcome can be recorded on it (BUILD_RESULT_ANNOTATION) and never changes. */
  final: boolean;
}

const MAX_MESSAGE = 1024;
const clip = (s: string, max: number) => (s.length > max ? s.slice(s.length - max) : s);
const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const text = (v: unknown, max: number) => (typeof v === 'string' && v.length > 0 ? clip(v, max) : undefined);
const reasonOf = (v: unknown): BuildReason | undefined => (BUILD_REASONS as readonly unknown[]).includes(v) ? (v as BuildReason) : undefined;

/** The termination message as orrery-build's outcome (build-wrapper.ts), or {} when it is not one. */
export function parseTerminationMessage(message: string | undefined): Record<string, unknown> {
  if (!message) return {};
  try {
    const v: unknown = JSON.parse(message);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    // FallbackToLogsOnError: no outcome was written, the kubelet put the log's tail there.
    return { log: message };
  }
}

/** The outcome recorded on a finished Job, if any. */
export function recordedOutcome(job: BuildJobView | undefined, id: BuildIdentity): BuildStatus | undefined {
  const raw = job?.metadata.annotations?.[BUILD_RESULT_ANNOTATION];
  if (!raw) return undefined;
  const r = parseTerminationMessage(raw);
  const phase = r.phase === 'Succeeded' || r.phase === 'Failed' ? r.phase : undefined;
  const reason = reasonOf(r.reason);
  if (!phase || !reason) return undefined;
  return compact({
    ...id,
    phase,
    reason,
    message: text(r.message, MAX_MESSAGE),
    startedAt: text(r.startedAt, 40),
    finishedAt: text(r.finishedAt, 40),
    dependencies: count(r.dependencies),
    sizeBytes: count(r.sizeBytes),
    log: text(r.log, MAX_BUILD_LOG_BYTES),
  });
}

const compact = (s: BuildStatus): BuildStatus => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as BuildStatus;

export function buildOutcome(job: BuildJobView | undefined, pod: BuildPodView | undefined, id: BuildIdentity): BuildOutcome {
  const recorded = recordedOutcome(job, id);
  if (recorded) return { status: recorded, final: true };
  if (!job) return { status: { ...id, phase: 'Pending', reason: 'Queued', message: 'the build Job is being created' }, final: false };
  const conditions = job.status?.conditions ?? [];
  const done = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  const startedAt = job.status?.startTime;
  if (!done) {
    return job.status?.active || startedAt
      ? { status: compact({ ...id, phase: 'Building', reason: 'Building', message: 'installing dependencies', startedAt }), final: false }
      : { status: { ...id, phase: 'Pending', reason: 'Queued', message: 'waiting for the build pod to start' }, final: false };
  }
  const r = parseTerminationMessage(pod?.build?.message);
  const log = text(pod?.log, MAX_BUILD_LOG_BYTES) ?? text(r.log, MAX_BUILD_LOG_BYTES);
  const finishedAt = job.status?.completionTime ?? done.lastTransitionTime ?? pod?.build?.finishedAt;
  const details = { startedAt, finishedAt, dependencies: count(r.dependencies), sizeBytes: count(r.sizeBytes), log };
  if (done.type === 'Complete') {
    const message = text(r.message, MAX_MESSAGE) ?? (details.dependencies !== undefined ? `built with ${details.dependencies} dependencies` : 'built');
    return { status: compact({ ...id, phase: 'Succeeded', reason: 'Built', message, ...details }), final: true };
  }
  let reason: BuildReason;
  let message: string;
  if (done.reason === 'DeadlineExceeded') {
    reason = 'BuildTimeout';
    message = `the build ran out of time: ${done.message ?? 'Job was active longer than its deadline'}`;
  } else if (pod?.fetch && pod.fetch.exitCode !== 0) {
    const f = parseTerminationMessage(pod.fetch.message);
    reason = 'ArchiveMissing';
    message = text(f.message, MAX_MESSAGE) ?? text(f.log, MAX_MESSAGE) ?? 'fetching the archive from package.url failed';
  } else {
    const claimed = reasonOf(r.reason);
    // A failed Job is never Built, whatever its pod says.
    reason = claimed && claimed !== 'Built' && claimed !== 'Building' && claimed !== 'Queued' ? claimed : 'DependenciesFailed';
    const exit = pod?.build ? ` (exit code ${pod.build.exitCode})` : '';
    message = text(r.message, MAX_MESSAGE) ?? `the build failed${exit}: ${done.message ?? done.reason ?? 'see log'}`;
  }
  return { status: compact({ ...id, phase: 'Failed', reason, message, ...details }), final: true };
}

/** What is recorded on a finished Job (BUILD_RESULT_ANNOTATION): the status minus its identity. */
export function recordedBody(status: BuildStatus): string {
  const { sha256: _s, key: _k, builder: _b, ...rest } = status;
  return JSON.stringify(rest);
}

import { describe, expect, it } from 'vitest';
import { type BuildJobView, buildOutcome, parseTerminationMessage, recordedBody, recordedOutcome } from './build-outcome.ts';

const id = { sha256: 'a'.repeat(64), key: 'b'.repeat(64), builder: 'node orrery/builder:0.1.0' };
const job = (status: BuildJobView['status'], annotations?: Record<string, string>): BuildJobView => ({ metadata: { annotations }, status });
const complete = { type: 'Complete', status: 'True', lastTransitionTime: '2026-01-01T00:01:00Z' };

describe('buildOutcome', () => {
  it('is Pending/Queued without a Job, or with one whose pod has not started', () => {
    expect(buildOutcome(undefined, undefined, id)).toEqual({ status: { ...id, phase: 'Pending', reason: 'Queued', message: 'the build Job is being created' }, final: false });
    expect(buildOutcome(job({}), undefined, id).status).toMatchObject({ phase: 'Pending', reason: 'Queued' });
  });

  it('is Building while the Job runs', () => {
    const o = buildOutcome(job({ active: 1, startTime: '2026-01-01T00:00:00Z' }), undefined, id);
    expect(o).toEqual({ status: { ...id, phase: 'Building', reason: 'Building', message: 'installing dependencies', startedAt: '2026-01-01T00:00:00Z' }, final: false });
  });

  it('maps a complete Job with the builder outcome to Succeeded with counts and the log tail', () => {
    const message = JSON.stringify({ phase: 'Succeeded', reason: 'Built', dependencies: 3, sizeBytes: 12345, exitCode: 0, log: 'added 3 packages' });
    const o = buildOutcome(job({ startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:01:00Z', conditions: [complete] }), { build: { exitCode: 0, message } }, id);
    expect(o).toEqual({
      final: true,
      status: { ...id, phase: 'Succeeded', reason: 'Built', message: 'built with 3 dependencies', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:01:00Z', dependencies: 3, sizeBytes: 12345, log: 'added 3 packages' },
    });
  });

  it('maps a failed Job to the builder reason, its message and log tail', () => {
    const message = JSON.stringify({ phase: 'Failed', reason: 'DependenciesFailed', message: 'npm install exited 1', exitCode: 2, log: 'npm ERR! code EJSONPARSE' });
    const o = buildOutcome(job({ conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] }), { build: { exitCode: 2, message } }, id);
    expect(o.final).toBe(true);
    expect(o.status).toMatchObject({ phase: 'Failed', reason: 'DependenciesFailed', message: 'npm install exited 1', log: 'npm ERR! code EJSONPARSE' });
  });

  it('prefers a longer log from pods/log and caps every log at 4096 characters', () => {
    const o = buildOutcome(job({ conditions: [{ type: 'Failed', status: 'True' }] }), { build: { exitCode: 2, message: '{"log":"short"}' }, log: 'x'.repeat(5000) + 'END' }, id);
    expect(o.status.log?.length).toBe(4096);
    expect(o.status.log?.endsWith('END')).toBe(true);
  });

  it('never reports a failed Job as built, whatever its pod wrote, and ignores bad counts', () => {
    const message = JSON.stringify({ phase: 'Succeeded', reason: 'Built', dependencies: -1, sizeBytes: 'lots' });
    const o = buildOutcome(job({ conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] }), { build: { exitCode: 1, message } }, id);
    expect(o.status).toMatchObject({ phase: 'Failed', reason: 'DependenciesFailed' });
    expect(o.status.dependencies).toBeUndefined();
    expect(o.status.sizeBytes).toBeUndefined();
    expect(o.status.message).toBe('the build failed (exit code 1): Job has reached the specified backoff limit');
  });

  it('says BuildTimeout when the Job ran past its deadline', () => {
    const o = buildOutcome(job({ conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }] }), undefined, id);
    expect(o.status).toMatchObject({ phase: 'Failed', reason: 'BuildTimeout' });
  });

  it('says ArchiveMissing when fetching package.url failed', () => {
    const fetch = { exitCode: 1, message: JSON.stringify({ phase: 'Failed', reason: 'ArchiveMissing', message: 'GET https://x/p.tgz answered 404' }) };
    const o = buildOutcome(job({ conditions: [{ type: 'Failed', status: 'True' }] }), { fetch }, id);
    expect(o.status).toMatchObject({ phase: 'Failed', reason: 'ArchiveMissing', message: 'GET https://x/p.tgz answered 404' });
  });

  it('reads an outcome recorded on the Job before anything else (the pod may be gone)', () => {
    const recorded = { ...id, phase: 'Succeeded' as const, reason: 'Built' as const, message: 'built', dependencies: 2 };
    const o = buildOutcome(job({ conditions: [complete] }, { 'orrery.dev/build-result': recordedBody(recorded) }), undefined, id);
    expect(o).toEqual({ status: recorded, final: true });
  });
});

describe('recordedOutcome and parseTerminationMessage', () => {
  it('ignore annotations that are not an outcome', () => {
    expect(recordedOutcome(job({}, { 'orrery.dev/build-result': '{"phase":"Maybe"}' }), id)).toBeUndefined();
    expect(recordedOutcome(job({}, { 'orrery.dev/build-result': 'not json' }), id)).toBeUndefined();
  });

  it('treat a message that is not JSON as a log tail (FallbackToLogsOnError)', () => {
    expect(parseTerminationMessage('npm ERR! boom')).toEqual({ log: 'npm ERR! boom' });
    expect(parseTerminationMessage('[1,2]')).toEqual({});
    expect(parseTerminationMessage(undefined)).toEqual({});
  });
});

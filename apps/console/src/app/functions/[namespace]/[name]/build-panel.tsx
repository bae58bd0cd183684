'use client';
import type { BuildPhase, OrreryFunction } from '@orrery/spec';
import { CopyButton } from '../../../../components/copy-button.tsx';
import { formatBytes } from '../../../state/format-bytes.ts';
import { BuildDurationBar } from './build-duration-bar.tsx';
import { buildTimeline } from './build-timeline.ts';
import styles from './function-detail.module.css';

/** One colour and glyph per phase the operator reports (it decides the phase; this only paints it). */
const PHASE: Record<BuildPhase, { colour: string; glyph: string }> = {
  Pending: { colour: 'var(--unknown)', glyph: '○' },
  Building: { colour: 'var(--progressing)', glyph: '◐' },
  Succeeded: { colour: 'var(--healthy)', glyph: '●' },
  Failed: { colour: 'var(--degraded)', glyph: '✕' },
};
const SHORT_SHA = 12;
const when = (t: string | undefined) => (t ? new Date(t).toLocaleString() : '—');

/** Where a template's code comes from, in the words of its spec field. */
function sourceKind(fn: OrreryFunction): string {
  const s = fn.spec.template.source;
  if (s.package) return 'package';
  if (s.configMapRef) return 'configMapRef';
  if (s.url) return 'url';
  return 'inline';
}

/**
 * The build of the Function's package source, from status.build alone (the operator builds; this
 * only shows what it reported): phase, why, when and how long, what it installed, the log's tail
 * as plain text, and the archive's sha256 to copy. Other sources have nothing to build: one line.
 */
export function BuildPanel({ fn, now }: { fn: OrreryFunction; now: number }) {
  const build = fn.status?.build;
  const kind = sourceKind(fn);
  const failed = build?.phase === 'Failed';
  const wanted = fn.spec.template.source.package?.sha256;
  // Nothing to build: one muted line under the facts rather than a whole card on every function page.
  if (!build && kind !== 'package') {
    return (
      <p id="build" className={`muted ${styles.panel}`} data-testid="build-none">
        {kind} source: nothing to build (a <code>package</code> source is built once with its dependencies, docs/packages.md).
      </p>
    );
  }
  return (
    <section id="build" className={['card', styles.panel, failed ? styles.buildFailed : undefined].filter(Boolean).join(' ')} aria-labelledby="build-heading" data-phase={build?.phase}>
      <h2 id="build-heading">Build</h2>
      {!build ? (
        <p className="muted" data-testid="build-waiting">
          The operator has not reported a build of this package yet.
        </p>
      ) : (
        <>
          <p className={styles.buildHeadline}>
            <span className="badge" style={{ color: PHASE[build.phase].colour }} data-testid="build-phase">
              {PHASE[build.phase].glyph} {build.phase}
            </span>
            <code data-testid="build-reason">{build.reason}</code>
            {build.message ? (
              <span className={failed ? 'error' : ''} data-testid="build-message">
                {build.message}
              </span>
            ) : null}
          </p>
          {wanted && wanted !== build.sha256 ? (
            <p className="warning" data-testid="build-stale">
              This is the build of an earlier archive: the operator has not reported one for <code>{wanted.slice(0, SHORT_SHA)}</code>, which the template names, yet.
            </p>
          ) : null}
          <dl className={styles.buildFacts}>
            <div>
              <dt>Archive sha256</dt>
              <dd>
                <code title={build.sha256} data-testid="build-sha256">
                  {build.sha256.slice(0, SHORT_SHA)}
                </code>{' '}
                <CopyButton text={build.sha256} label="Copy the archive's full sha256" testId="build-sha256-copy" />
              </dd>
            </div>
            <div>
              <dt>Builder</dt>
              <dd>
                <code title={`built package ${build.key}`}>{build.builder}</code>
              </dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{when(build.startedAt)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{when(build.finishedAt)}</dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>
                <BuildDurationBar timeline={buildTimeline(build, now)} fill={PHASE[build.phase].colour} />
              </dd>
            </div>
            <div>
              <dt>Dependencies</dt>
              <dd data-testid="build-dependencies">{build.dependencies ?? '—'}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd data-testid="build-size">{build.sizeBytes === undefined ? '—' : <span title={`${build.sizeBytes} bytes`}>{formatBytes(build.sizeBytes)}</span>}</dd>
            </div>
          </dl>
          {/* Open by default when the build failed: the log's tail is usually where the why is. */}
          <details open={failed}>
            <summary>Log (last 4 KiB)</summary>
            {build.log ? (
              // Text, never HTML: React escapes it; tabIndex lets the keyboard scroll it.
              <pre className={styles.buildLog} tabIndex={0} aria-label="Build log tail" data-testid="build-log">
                {build.log}
              </pre>
            ) : (
              <p className="muted">no output recorded</p>
            )}
          </details>
        </>
      )}
    </section>
  );
}

'use client';
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { NotRunnable } from '@orrery/api';
import { revisionSectionId, type OrreryFunction, type Revision } from '@orrery/spec';
import { ActionButton } from '../../../../components/action-button.tsx';
import { ConfirmDialog } from '../../../../components/confirm-dialog.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { diffRows, rowsFromSpec } from '../../traffic-draft.ts';
import { rollbackChoice } from './rollback-choice.ts';
import { TrafficDiff } from './traffic-editor.tsx';
import styles from './function-detail.module.css';

/**
 * Revisions oldest → newest with readiness, workers (ready / desired / actual from the function's
 * status), autoscaler mode, the traffic each receives now, and a one-click rollback (100 % to it)
 * behind a confirmation that shows the diff — disabled, with the reason, for a revision that can
 * never serve (`notRunnable`, functions.revisions' verdict: its package build failed).
 */
export function RevisionsTimeline({ fn, revisions, notRunnable }: { fn: OrreryFunction; revisions: Revision[]; notRunnable: Readonly<Record<string, NotRunnable>> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [target, setTarget] = useState<string | null>(null);
  const rollback = useMutation(
    trpc.functions.rollback.mutationOptions({
      onSuccess: async () => {
        setTarget(null);
        await qc.invalidateQueries();
      },
      onError: () => setTarget(null),
    }),
  );
  const names = revisions.map((r) => r.metadata.name);
  const current = rowsFromSpec(fn.spec.traffic, names);
  const scale = new Map((fn.status?.revisions ?? []).map((r) => [r.revisionName, r]));
  const serving = new Map<string, Array<{ percent: number; tag?: string }>>();
  for (const t of fn.status?.traffic ?? []) serving.set(t.revisionName, [...(serving.get(t.revisionName) ?? []), t]);
  const specFollowsLatest = fn.spec.traffic.some((t) => t.latestRevision);

  return (
    <section className={`card ${styles.panel}`} aria-labelledby="revisions-heading">
      <h2 id="revisions-heading">Revisions</h2>
      {revisions.length === 0 ? <p className="muted">No revisions yet: the operator creates one per template change.</p> : null}
      <ol className={styles.timeline} data-testid="revisions-timeline">
        {revisions.map((r) => {
          const name = r.metadata.name;
          const ready = r.status?.conditions?.find((c) => c.type === 'Ready');
          const s = scale.get(name);
          const traffic = serving.get(name) ?? [];
          const percent = traffic.reduce((a, t) => a + t.percent, 0);
          const tags = traffic.map((t) => t.tag).filter(Boolean);
          const unrunnable = Object.hasOwn(notRunnable, name) ? notRunnable[name] : undefined;
          const choice = rollbackChoice(name, traffic, specFollowsLatest, unrunnable);
          return (
            <li key={name} id={revisionSectionId(name)} className={styles.revision} data-testid={`revision-${name}`}>
              <div>
                <strong>
                  <a href={`#${revisionSectionId(name)}`} title="link to this revision">
                    {name}
                  </a>
                </strong>
                {name === fn.status?.latestCreatedRevision ? <span className="badge muted">newest</span> : null}{' '}
                {name === fn.status?.latestReadyRevision ? <span className="badge health-Healthy">latest ready</span> : null}{' '}
                {unrunnable ? (
                  <span className="badge error" title={unrunnable.message} data-testid={`revision-not-runnable-${name}`}>
                    build failed
                  </span>
                ) : null}
                <div className="muted">
                  {r.metadata.creationTimestamp ? (
                    <>
                      created <time dateTime={r.metadata.creationTimestamp}>{new Date(r.metadata.creationTimestamp).toLocaleString()}</time> ·{' '}
                    </>
                  ) : null}
                  Ready={ready?.status ?? 'not reported'}
                  {ready?.reason ? ` (${ready.reason}${ready.message ? `: ${ready.message}` : ''})` : ''}
                </div>
                <div className="muted">
                  workers {s ? `${s.ready} ready / ${s.desired} desired / ${s.actual} actual` : 'not reported'}
                  {r.status?.autoscalerMode ? ` · autoscaler ${r.status.autoscalerMode}` : ''}
                </div>
              </div>
              <div className={styles.revisionTraffic} data-testid={`revision-traffic-${name}`}>
                {percent} %{tags.length ? ` · #${tags.join(' #')}` : ''}
              </div>
              <ActionButton
                procedure="functions.rollback"
                data-testid={`rollback-${name}`}
                disabled={!choice.enabled || rollback.isPending}
                title={choice.title}
                onClick={() => {
                  rollback.reset();
                  setTarget(name);
                }}
              >
                Roll back to this
              </ActionButton>
            </li>
          );
        })}
      </ol>
      {rollback.error ? (
        <p role="alert" className="error" data-testid="rollback-error">
          Rollback failed: {rollback.error.message}
        </p>
      ) : null}
      {rollback.isSuccess ? (
        <p role="status" className="muted" data-testid="rollback-done">
          Rolled back: all traffic goes to {rollback.data.spec.traffic[0]?.revisionName}.
        </p>
      ) : null}
      {/* Mounted only while open, so the page holds one confirm button (data-testid confirm-action) at a time. */}
      {target !== null ? (
        <ConfirmDialog
          open
          title={`Roll ${fn.metadata.namespace}/${fn.metadata.name} back to ${target}?`}
          confirmLabel="Roll back"
          danger
          busy={rollback.isPending}
          onConfirm={() => rollback.mutate({ namespace: fn.metadata.namespace, name: fn.metadata.name, revision: target, generation: fn.metadata.generation })}
          onCancel={() => setTarget(null)}
        >
          <p>All traffic will go to {target}; tags on other revisions are dropped.</p>
          <TrafficDiff changes={diffRows(current, rowsFromSpec([{ revisionName: target, percent: 100 }], names))} />
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

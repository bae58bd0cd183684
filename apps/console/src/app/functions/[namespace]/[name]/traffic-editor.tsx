'use client';
import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { NotRunnable } from '@orrery/api';
import type { OrreryFunction, TrafficTarget } from '@orrery/spec';
import { ActionButton } from '../../../../components/action-button.tsx';
import { ConfirmDialog } from '../../../../components/confirm-dialog.tsx';
import { DataTable } from '../../../../components/data-table.tsx';
import { useTRPC } from '../../../../lib/trpc.ts';
import { diffRows, LATEST_KEY, rowKeyOfIssue, rowsFromSpec, sumOf, trafficFromRows, type TrafficRow } from '../../traffic-draft.ts';
import { trafficToNotRunnable } from './traffic-to-not-runnable.ts';
import styles from './function-detail.module.css';

const labelOf = (key: string) => (key === LATEST_KEY ? 'latest ready revision' : key);
/** A number box and a slider per row edit the same percent; only the box marks the row's issues. */
const PERCENT_INPUTS = [
  { type: 'number', label: 'percent for', testid: 'traffic-input' },
  { type: 'range', label: 'percent slider for', testid: 'traffic-slider' },
] as const;

/**
 * The traffic split editor: a number input and a slider per revision (plus "latest"), an optional
 * tag each; Apply needs a sum of exactly 100 and shows the old → new diff before anything is sent.
 * Edits start from the function as read then (its generation), so a concurrent change of the
 * spec is refused by the API (CONFLICT) instead of being overwritten; the operator's status
 * updates meanwhile (the live view refreshes them) do not count. A share on a revision that can
 * never serve (`notRunnable`: its package build failed) is warned about on its row and in the
 * confirmation, not blocked: moving traffic away from it must stay possible step by step.
 */
export function TrafficEditor({ fn, revisions, notRunnable }: { fn: OrreryFunction; revisions: string[]; notRunnable: Readonly<Record<string, NotRunnable>> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const current = useMemo(() => rowsFromSpec(fn.spec.traffic, revisions), [fn.spec.traffic, revisions]);
  const [draft, setDraft] = useState<{ rows: TrafficRow[]; generation?: number } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [sent, setSent] = useState<TrafficTarget[]>([]);
  const setTraffic = useMutation(
    trpc.functions.traffic.set.mutationOptions({
      onSuccess: async () => {
        setDraft(null);
        setConfirming(false);
        await qc.invalidateQueries();
      },
      onError: () => setConfirming(false),
    }),
  );

  // Rows for revisions created after the edit began are added at 0 %.
  const rows = draft ? [...draft.rows, ...current.filter((c) => !draft.rows.some((r) => r.key === c.key)).map((c) => ({ ...c, percent: 0, tag: '' }))] : current;
  const sum = sumOf(rows);
  const diff = diffRows(current, rows);
  const changed = diff.some((d) => d.changed);
  const doomed = trafficToNotRunnable(rows, notRunnable);
  const doomedByRow = new Map(doomed.map((d) => [d.key, d]));
  const issues = setTraffic.error?.data?.issues ?? [];
  const issuesByRow = new Map<string, string[]>();
  const otherIssues: string[] = [];
  for (const i of issues) {
    const key = rowKeyOfIssue(i.path, sent);
    if (key) issuesByRow.set(key, [...(issuesByRow.get(key) ?? []), i.message]);
    else otherIssues.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }

  const edit = (key: string, patch: Partial<TrafficRow>) => {
    setTraffic.reset();
    setDraft((d) => {
      const base = d ?? { rows: current, generation: fn.metadata.generation };
      const has = base.rows.some((r) => r.key === key);
      const next = has ? base.rows.map((r) => (r.key === key ? { ...r, ...patch } : r)) : [...base.rows, { key, percent: 0, tag: '', ...patch }];
      return { ...base, rows: next };
    });
  };
  const percentOf = (v: string) => {
    const n = Math.round(Number(v));
    return Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : 0;
  };
  const apply = () => {
    const traffic = trafficFromRows(rows);
    setSent(traffic);
    setTraffic.mutate({ namespace: fn.metadata.namespace, name: fn.metadata.name, traffic, generation: draft?.generation });
  };

  return (
    <section className={`card ${styles.panel}`} aria-labelledby="traffic-heading">
      <h2 id="traffic-heading">Traffic split</h2>
      <p className="muted">
        Percents must add up to 100. A tag makes a revision reachable with the header <code>Orrery-Tag: &lt;tag&gt;</code> whatever its percent.
        {draft ? ' Editing: the live values are paused until you apply or reset.' : ''}
      </p>
      <DataTable
        className={styles.traffic}
        caption="Percent and tag per revision"
        columns={['Target', 'Percent', 'Tag']}
        rows={rows}
        row={(r) => {
          const rowIssues = issuesByRow.get(r.key);
          const id = r.key === LATEST_KEY ? 'latest' : r.key;
          return (
            <tr key={r.key} data-testid={`traffic-row-${id}`}>
              <th scope="row">
                {labelOf(r.key)}
                {r.key === LATEST_KEY && fn.status?.latestReadyRevision ? <span className="muted"> (now {fn.status.latestReadyRevision})</span> : null}
              </th>
              <td>
                <div className={styles.percent}>
                  {PERCENT_INPUTS.map((input) => (
                    <input
                      key={input.type}
                      type={input.type}
                      min={0}
                      max={100}
                      step={1}
                      value={r.percent}
                      aria-label={`${input.label} ${labelOf(r.key)}`}
                      aria-invalid={input.type === 'number' && rowIssues ? true : undefined}
                      data-testid={`${input.testid}-${id}`}
                      onChange={(e) => edit(r.key, { percent: percentOf(e.target.value) })}
                    />
                  ))}
                </div>
                {doomedByRow.has(r.key) ? (
                  <p className="warning" data-testid={`traffic-warning-${id}`}>
                    ⚠ {r.key} can never serve: {doomedByRow.get(r.key)!.message}; requests sent to it will fail
                  </p>
                ) : null}
                {rowIssues ? (
                  <p className="error" role="alert" data-testid={`traffic-error-${id}`}>
                    {rowIssues.join('; ')}
                  </p>
                ) : null}
              </td>
              <td>
                <input
                  value={r.tag}
                  placeholder="none"
                  aria-label={`tag for ${labelOf(r.key)}`}
                  data-testid={`traffic-tag-${id}`}
                  onChange={(e) => edit(r.key, { tag: e.target.value })}
                  size={12}
                />
              </td>
            </tr>
          );
        }}
        footer={
          <tr>
            <th scope="row">Sum</th>
            <td colSpan={2}>
              <strong data-testid="traffic-sum" data-sum={sum} className={sum === 100 ? undefined : 'error'}>
                {sum} %
              </strong>{' '}
              {sum === 100 ? <span className="muted">✓ adds up to 100</span> : <span className="error">✕ must be exactly 100 ({sum < 100 ? `${100 - sum} missing` : `${sum - 100} too many`})</span>}
            </td>
          </tr>
        }
      />
      <p className={styles.actions}>
        <ActionButton
          procedure="functions.traffic.set"
          className="primary"
          data-testid="traffic-apply"
          disabled={sum !== 100 || !changed || setTraffic.isPending}
          title={sum !== 100 ? 'the percents must add up to 100' : !changed ? 'nothing changed' : undefined}
          onClick={() => setConfirming(true)}
        >
          Apply…
        </ActionButton>
        <button type="button" onClick={() => {
            setDraft(null);
            setTraffic.reset();
          }} disabled={!draft} data-testid="traffic-reset">
          Reset
        </button>
      </p>
      {setTraffic.error ? (
        <div role="alert" className="error" data-testid="traffic-server-error">
          <p>{setTraffic.error.message}</p>
          {otherIssues.length ? (
            <ul>
              {otherIssues.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {setTraffic.isSuccess && !draft ? (
        <p className="muted" role="status" data-testid="traffic-applied">
          Applied; the routers pick the new split up within a second.
        </p>
      ) : null}
      {/* Mounted only while open, so the page holds one confirm button (data-testid confirm-action) at a time. */}
      {confirming ? (
        <ConfirmDialog
          open
          title={`Change the traffic split of ${fn.metadata.namespace}/${fn.metadata.name}?`}
          confirmLabel="Apply split"
          busy={setTraffic.isPending}
          onConfirm={apply}
          onCancel={() => setConfirming(false)}
        >
          <TrafficDiff changes={diff} />
          {doomed.length ? (
            <p className="warning" role="alert" data-testid="traffic-confirm-warning">
              ⚠ {doomed.map((d) => `${d.percent} % goes to ${d.key}, which can never serve (${d.message})`).join('; ')}. Those requests will fail.
            </p>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Old → new per target; changed rows say so in words, not only by style. */
export function TrafficDiff({ changes }: { changes: ReturnType<typeof diffRows> }) {
  const show = (v: { percent: number; tag: string }) => `${v.percent} %${v.tag ? ` #${v.tag}` : ''}`;
  return (
    <DataTable
      data-testid="traffic-diff"
      caption="Traffic before and after"
      columns={['Target', 'Now', 'After', <span className="sr-only">Changed</span>]}
      rows={changes}
      row={(c) => (
        <tr key={c.key} data-testid="traffic-diff-row" data-changed={c.changed}>
          <th scope="row">{labelOf(c.key)}</th>
          <td>{show(c.before)}</td>
          <td>{c.changed ? <strong>{show(c.after)}</strong> : show(c.after)}</td>
          <td className={c.changed ? 'warning' : 'muted'}>{c.changed ? 'changed' : 'same'}</td>
        </tr>
      )}
    />
  );
}

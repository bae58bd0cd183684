'use client';
import { Suspense, useEffect, useState } from 'react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { auditFilterFromParams, auditListInput, paramsFromAuditFilter, type AuditFilter } from './audit-filter.ts';
import { AuditResultBadge } from '../../components/audit-result-badge.tsx';
import styles from './audit.module.css';

/** The audit log: every mutating call, refused ones included, newest first, live; filters live in the URL (deep links). */
function AuditLog() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [filter, setFilter] = useState<AuditFilter>(() => auditFilterFromParams(params));
  // Older pages: the cursors walked so far (the newest page has none), so "Newer" can step back.
  const [cursors, setCursors] = useState<number[]>([]);
  const cursor = cursors.at(-1);

  useEffect(() => {
    const next = paramsFromAuditFilter(filter).toString();
    if (next !== params.toString()) router.replace(next ? `${pathname}?${next}` : pathname, { scroll: false });
  }, [filter, params, pathname, router]);

  const q = useQuery(trpc.audit.list.queryOptions(auditListInput(filter, cursor)));
  const set = (patch: Partial<AuditFilter>) => {
    setCursors([]);
    setFilter((f) => ({ ...f, ...patch }));
  };
  const items = q.data?.items ?? [];

  return (
    <>
      <h1>Audit log</h1>
      <form className={`card ${styles.filters}`} aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label>
          Who
          <input value={filter.who} onChange={(e) => set({ who: e.target.value })} placeholder="exact user" data-testid="audit-filter-who" />
        </label>
        <label>
          Action
          <input value={filter.action} onChange={(e) => set({ action: e.target.value })} placeholder="functions.rollback or registry." data-testid="audit-filter-action" />
        </label>
        <label>
          Target contains
          <input value={filter.target} onChange={(e) => set({ target: e.target.value })} placeholder="default/cart" data-testid="audit-filter-target" />
        </label>
        <label>
          Result
          <select value={filter.result} onChange={(e) => set({ result: e.target.value as AuditFilter['result'] })} data-testid="audit-filter-result">
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={filter.from} onChange={(e) => set({ from: e.target.value })} data-testid="audit-filter-from" />
        </label>
        <label>
          To
          <input type="datetime-local" value={filter.to} onChange={(e) => set({ to: e.target.value })} data-testid="audit-filter-to" />
        </label>
        <label>
          Rows
          <select value={filter.limit} onChange={(e) => set({ limit: Number(e.target.value) })}>
            {[25, 50, 100, 200].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => set({ who: '', action: '', target: '', result: '', from: '', to: '' })}>
          Clear filters
        </button>
      </form>
      <p className="muted">
        An action ending in <code>.</code> matches every action with that prefix. {cursor ? 'Showing older rows; this page refreshes too.' : 'Newest first; refreshes every 2 s.'}
      </p>
      <QueryState isLoading={q.isLoading} error={q.error} />
      <DataTable
        data-testid="audit-table"
        caption="Audit rows, newest first"
        columns={['When', 'Who', 'Action', 'Target', 'Result', 'Details']}
        rows={items}
        empty={
          q.data ? (
            <p className="muted" data-testid="audit-empty">
              No audit rows match.
            </p>
          ) : null
        }
        row={(r) => (
          <tr key={r.id} data-testid="audit-row" data-id={r.id} data-result={r.result}>
            <td>
              <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
            </td>
            <td data-testid="audit-who">
              {r.who} <span className="muted">({r.role})</span>
            </td>
            <td data-testid="audit-action">
              <code>{r.action}</code>
            </td>
            <td data-testid="audit-target">{r.target}</td>
            <td>
              <AuditResultBadge result={r.result} testId="audit-result" />
              {r.error ? <div className={`error ${styles.errorText}`}>{r.error}</div> : null}
            </td>
            <td>
              {r.input !== null || r.before !== null || r.after !== null ? (
                <details>
                  <summary>input, before, after</summary>
                  <pre className={styles.json}>{JSON.stringify({ input: r.input, before: r.before, after: r.after }, null, 2)}</pre>
                </details>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
          </tr>
        )}
      />
      <p className={styles.pager}>
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <button type="button" disabled={!q.data?.nextCursor} onClick={() => q.data?.nextCursor && setCursors((c) => [...c, q.data.nextCursor!])} data-testid="audit-older">
          Older →
        </button>
      </p>
    </>
  );
}

export default function AuditPage() {
  return (
    <Suspense>
      <AuditLog />
    </Suspense>
  );
}

import type { TrafficTarget } from '@orrery/spec';

/** The editor's row key for `latestRevision: true` (follows each new ready revision). */
export const LATEST_KEY = '@latest';

/** One row of the traffic split editor: a revision (or "latest") with its percent and optional tag. */
export interface TrafficRow {
  key: string;
  percent: number;
  tag: string;
}

/**
 * Editor rows from the function's `spec.traffic`: one for "latest" and one per revision (those
 * without traffic at 0 %). An empty spec means 100 % latest. A revision named twice is merged
 * (percents added, the first tag kept): the editor has one row per revision.
 */
export function rowsFromSpec(traffic: readonly TrafficTarget[], revisions: readonly string[]): TrafficRow[] {
  const rows = new Map<string, TrafficRow>([[LATEST_KEY, { key: LATEST_KEY, percent: 0, tag: '' }]]);
  for (const r of revisions) rows.set(r, { key: r, percent: 0, tag: '' });
  if (traffic.length === 0) rows.get(LATEST_KEY)!.percent = 100;
  for (const t of traffic) {
    const key = t.latestRevision ? LATEST_KEY : (t.revisionName ?? '');
    if (!key) continue;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, percent: 0, tag: '' }));
    row.percent += t.percent ?? 0;
    if (!row.tag && t.tag) row.tag = t.tag;
  }
  return [...rows.values()];
}

export const sumOf = (rows: readonly TrafficRow[]): number => rows.reduce((s, r) => s + (Number.isFinite(r.percent) ? r.percent : 0), 0);

/** The `spec.traffic` the rows describe: rows with a percent or a tag, "latest" first. */
export function trafficFromRows(rows: readonly TrafficRow[]): TrafficTarget[] {
  return rows
    .filter((r) => r.percent > 0 || r.tag.trim() !== '')
    .map((r) => ({
      ...(r.key === LATEST_KEY ? { latestRevision: true } : { revisionName: r.key }),
      percent: r.percent,
      ...(r.tag.trim() ? { tag: r.tag.trim() } : {}),
    }));
}

export interface TrafficChange {
  key: string;
  before: { percent: number; tag: string };
  after: { percent: number; tag: string };
  changed: boolean;
}

/** Old → new per row, for the confirmation dialog; rows with nothing on either side are left out. */
export function diffRows(before: readonly TrafficRow[], after: readonly TrafficRow[]): TrafficChange[] {
  const keys = [...new Set([...before.map((r) => r.key), ...after.map((r) => r.key)])];
  const empty = { percent: 0, tag: '' };
  return keys
    .map((key) => {
      const b = before.find((r) => r.key === key) ?? { key, ...empty };
      const a = after.find((r) => r.key === key) ?? { key, ...empty };
      return { key, before: { percent: b.percent, tag: b.tag }, after: { percent: a.percent, tag: a.tag.trim() }, changed: b.percent !== a.percent || b.tag !== a.tag.trim() };
    })
    .filter((c) => c.before.percent > 0 || c.after.percent > 0 || c.before.tag || c.after.tag);
}

/** Row key an API issue path (`traffic[1].percent`) points at, given the targets that were sent. */
export function rowKeyOfIssue(path: string, sent: readonly TrafficTarget[]): string | undefined {
  const m = /^traffic\[(\d+)\]/.exec(path);
  if (!m) return undefined;
  const t = sent[Number(m[1])];
  if (!t) return undefined;
  return t.latestRevision ? LATEST_KEY : t.revisionName;
}

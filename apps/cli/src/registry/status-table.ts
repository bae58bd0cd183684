/** Renders `/admin/v1/status` data as a fixed-width table (pure, for the CLI). */
import type { RegistryAdminStatus } from '@orrery/spec';
/** The registry's /admin/v1/status data (the schema both sides share). */
export type StatusData = RegistryAdminStatus;

function bytes(n: number | undefined): string {
  if (n === undefined) return '-';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function renderStatus(s: StatusData): string {
  const header = ['ID', 'NAME', 'ROLE', 'LEADER', 'HEALTH', 'TERM', 'INDEX', 'APPLIED', 'DB', 'CLIENT URL'];
  const rows = s.members.map((m) => [
    m.id,
    m.name || '(not started)',
    m.isLearner ? 'learner' : 'voter',
    m.isLeader ? '*' : '',
    m.reachable ? 'healthy' : 'unreachable',
    m.raftTerm?.toString() ?? '-',
    m.raftIndex?.toString() ?? '-',
    m.raftAppliedIndex?.toString() ?? '-',
    bytes(m.dbSize),
    m.clientURLs[0] ?? '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [
    `cluster ${s.clusterId}  leader ${s.leader ? `${s.leader.name} (${s.leader.id})` : 'NONE'}`,
    '',
    line(header),
    ...rows.map(line),
  ];
  const problems = s.members.filter((m) => m.errors.length > 0);
  if (problems.length > 0) {
    out.push('', ...problems.map((m) => `${m.name || m.id}: ${m.errors.join('; ')}`));
  }
  return out.join('\n');
}

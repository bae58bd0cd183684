/**
 * `orrery registry status CLUSTER` through the admin API: the members as the operator last
 * observed them (registry.members), the requests still waiting and the last one's outcome. Pure.
 */
export interface MembersView {
  replicas: number;
  leader: string | null;
  members: ReadonlyArray<{ id: string; name: string; role: string; isLeader: boolean; health: string; raftTerm?: number; raftIndex?: number; raftAppliedIndex?: number; lag: number | null }>;
  pendingRequests: ReadonlyArray<{ id: string; action: string; member?: string; requestedBy?: string }>;
  lastRequest: { id: string; action: string; member?: string; outcome: string; message: string } | null;
}

export function renderMembers(cluster: string, v: MembersView): string {
  const header = ['NAME', 'ID', 'ROLE', 'LEADER', 'HEALTH', 'TERM', 'INDEX', 'APPLIED', 'LAG'];
  const n = (x: number | null | undefined) => (x === undefined || x === null ? '-' : String(x));
  const rows = v.members.map((m) => [m.name, m.id, m.role, m.isLeader ? '*' : '', m.health, n(m.raftTerm), n(m.raftIndex), n(m.raftAppliedIndex), n(m.lag)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const voters = v.members.filter((m) => m.role === 'voter').length;
  const out = [`registrycluster ${cluster}  leader ${v.leader ?? 'NONE'}  voters ${voters} (desired ${v.replicas})`, line(header), ...rows.map(line)];
  if (v.members.length === 0) out.push('(the operator has not observed any member yet)');
  for (const r of v.pendingRequests) out.push(`pending ${r.id}: ${r.action}${r.member ? ` ${r.member}` : ''}${r.requestedBy ? ` (by ${r.requestedBy})` : ''}`);
  if (v.lastRequest) out.push(`last request ${v.lastRequest.id}: ${v.lastRequest.action}${v.lastRequest.member ? ` ${v.lastRequest.member}` : ''} ${v.lastRequest.outcome} — ${v.lastRequest.message}`);
  return out.join('\n');
}

'use client';
import { ActionButton } from '../../../../components/action-button.tsx';
import { HealthBadge, type Health } from '../../../../components/health-badge.tsx';
import { learnerCatchUp } from './catch-up.ts';
import type { Member } from './members-output.ts';
import styles from './registry.module.css';

export type MemberAction = 'promote' | 'transfer-leader' | 'remove';

const HEALTH: Record<Member['health'], Health> = { healthy: 'Healthy', unhealthy: 'Degraded', unknown: 'Unknown' };

/** Why an action on a member must wait, or undefined when it may run now. */
function blocked(action: MemberAction, m: Member, members: Member[], leaderIndex: number | undefined): string | undefined {
  const hasLeader = members.some((x) => x.isLeader);
  if (!hasLeader && action !== 'remove') return 'the cluster has no leader right now';
  if (action === 'promote') return learnerCatchUp(m.raftAppliedIndex, leaderIndex).reason;
  if (action === 'transfer-leader' && m.health !== 'healthy') return `${m.name} is ${m.health}: leadership goes only to a healthy voter`;
  if (action === 'remove' && m.role === 'voter' && members.filter((x) => x.role === 'voter').length === 1) return `${m.name} is the last voter`;
  return undefined;
}

/** The members as a table (same data as the graph) with the per-member one-click actions. */
export function MemberTable({ members, onAction }: { members: Member[]; onAction: (action: MemberAction, member: Member) => void }) {
  const leaderIndex = members.find((m) => m.isLeader)?.raftIndex;
  return (
    <table className={styles.members}>
      <caption className="sr-only">Members with role, health, raft term and indexes, lag and actions</caption>
      <thead>
        <tr>
          <th scope="col">Member</th>
          <th scope="col">Role</th>
          <th scope="col">Health</th>
          <th scope="col">Term</th>
          <th scope="col">Raft index</th>
          <th scope="col">Applied index</th>
          <th scope="col">Lag</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {members.map((m) => {
          const actions: Array<{ action: MemberAction; label: string; testid: string; procedure: string; danger?: boolean }> = [];
          if (m.role === 'learner') actions.push({ action: 'promote', label: 'Promote', testid: `promote-${m.name}`, procedure: 'registry.promote' });
          if (m.role === 'voter' && !m.isLeader) actions.push({ action: 'transfer-leader', label: 'Transfer leadership here', testid: `transfer-${m.name}`, procedure: 'registry.transferLeader' });
          actions.push({ action: 'remove', label: 'Remove', testid: `remove-${m.name}`, procedure: 'registry.remove', danger: true });
          const catchUp = m.role === 'learner' ? learnerCatchUp(m.raftAppliedIndex, leaderIndex) : undefined;
          return (
            <tr key={m.name} data-testid={`member-${m.name}`} data-leader={m.isLeader ? 'true' : undefined}>
              <th scope="row">
                {m.name}
                {m.isLeader ? (
                  <span className={styles.leaderBadge} data-testid="leader-badge">
                    ♛ leader <span className="sr-only">is </span>
                    {m.name}
                  </span>
                ) : null}
                <span className={`muted ${styles.why}`}>id {m.id}</span>
              </th>
              <td data-testid={`member-role-${m.name}`}>{m.role}</td>
              <td>
                <HealthBadge health={HEALTH[m.health]} />
              </td>
              <td className={styles.num}>{m.raftTerm ?? '—'}</td>
              <td className={styles.num}>{m.raftIndex ?? '—'}</td>
              <td className={styles.num}>{m.raftAppliedIndex ?? '—'}</td>
              <td className={styles.num} data-testid={`member-lag-${m.name}`}>
                {m.lag ?? '—'}
                {catchUp?.percent != null ? <span className={`muted ${styles.why}`}>{catchUp.percent} % caught up</span> : null}
              </td>
              <td>
                <div className={styles.actions}>
                  {actions.map((a) => {
                    const why = blocked(a.action, m, members, leaderIndex);
                    return (
                      <ActionButton
                        key={a.action}
                        procedure={a.procedure}
                        data-testid={a.testid}
                        className={a.danger ? 'danger' : undefined}
                        disabled={why !== undefined}
                        title={why}
                        aria-label={`${a.label}: ${m.name}${why ? ` (unavailable: ${why})` : ''}`}
                        onClick={() => onAction(a.action, m)}
                      >
                        {a.label}
                      </ActionButton>
                    );
                  })}
                </div>
                {m.role === 'learner' && catchUp?.reason ? <span className={`warning ${styles.why}`}>Promote waits: {catchUp.reason}</span> : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

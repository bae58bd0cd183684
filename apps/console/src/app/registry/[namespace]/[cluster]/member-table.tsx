'use client';
import { ActionButton } from '../../../../components/action-button.tsx';
import { HealthBadge, type Health } from '../../../../components/health-badge.tsx';
import { promotionView } from './promotion-view.ts';
import type { Member } from './members-output.ts';
import styles from './registry.module.css';

/** `force-promote`: promote without the catch-up rule (registry.forcePromote, admin). */
export type MemberAction = 'promote' | 'force-promote' | 'transfer-leader' | 'remove';

const HEALTH: Record<Member['health'], Health> = { healthy: 'Healthy', unhealthy: 'Degraded', unknown: 'Unknown' };

/** Why an action on a member must wait, or undefined when it may run now. */
function blocked(action: MemberAction, m: Member, members: Member[]): string | undefined {
  const hasLeader = members.some((x) => x.isLeader);
  if (!hasLeader && action !== 'remove') return 'the cluster has no leader right now';
  // The promotion rule's verdict from the API: registry.promote refuses exactly when this says wait.
  if (action === 'promote') return promotionView(m.promotion).reason;
  if (action === 'transfer-leader' && m.health !== 'healthy') return `${m.name} is ${m.health}: leadership goes only to a healthy voter`;
  if (action === 'remove' && m.role === 'voter' && members.filter((x) => x.role === 'voter').length === 1) return `${m.name} is the last voter`;
  return undefined;
}

/** The members as a table (same data as the graph) with the per-member one-click actions. */
export function MemberTable({ members, onAction }: { members: Member[]; onAction: (action: MemberAction, member: Member) => void }) {
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
          const promotion = m.role === 'learner' ? promotionView(m.promotion) : undefined;
          if (promotion) actions.push({ action: 'promote', label: 'Promote', testid: `promote-${m.name}`, procedure: 'registry.promote' });
          // Only while the rule says wait: skipping it is an admin's call (the dialog says what it risks).
          if (promotion && !promotion.ready) actions.push({ action: 'force-promote', label: 'Force promote', testid: `force-promote-${m.name}`, procedure: 'registry.forcePromote', danger: true });
          if (m.role === 'voter' && !m.isLeader) actions.push({ action: 'transfer-leader', label: 'Transfer leadership here', testid: `transfer-${m.name}`, procedure: 'registry.transferLeader' });
          actions.push({ action: 'remove', label: 'Remove', testid: `remove-${m.name}`, procedure: 'registry.remove', danger: true });
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
                {promotion ? (
                  <span className={`muted ${styles.why}`} data-testid={`member-promotion-${m.name}`}>
                    {promotion.lag}, {promotion.polls}
                  </span>
                ) : null}
              </td>
              <td>
                <div className={styles.actions}>
                  {actions.map((a) => {
                    const why = blocked(a.action, m, members);
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
                {promotion?.reason ? (
                  <span className={`warning ${styles.why}`} data-testid={`promote-waits-${m.name}`}>
                    Promote waits: {promotion.reason}
                  </span>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

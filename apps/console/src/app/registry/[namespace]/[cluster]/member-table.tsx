'use client';
import { DataTable } from '../../../../components/data-table.tsx';
import { ActionButton } from '../../../../components/action-button.tsx';
import { HealthBadge } from '../../../../components/health-badge.tsx';
import type { Member } from './members-output.ts';
import styles from './registry.module.css';

/** `force-promote`: promote without the catch-up rule (registry.forcePromote, admin). */
export type MemberAction = 'promote' | 'force-promote' | 'transfer-leader' | 'remove';

/** How each action registry.members offers shows as a button, in table order. */
const BUTTONS: Array<{ key: keyof Member['actions']; action: MemberAction; label: string; testid: (name: string) => string; procedure: string; danger?: boolean }> = [
  { key: 'promote', action: 'promote', label: 'Promote', testid: (n) => `promote-${n}`, procedure: 'registry.promote' },
  // Offered only while the rule says wait: skipping it is an admin's call (the dialog says what it risks).
  { key: 'forcePromote', action: 'force-promote', label: 'Force promote', testid: (n) => `force-promote-${n}`, procedure: 'registry.forcePromote', danger: true },
  { key: 'transferLeader', action: 'transfer-leader', label: 'Transfer leadership here', testid: (n) => `transfer-${n}`, procedure: 'registry.transferLeader' },
  { key: 'remove', action: 'remove', label: 'Remove', testid: (n) => `remove-${n}`, procedure: 'registry.remove', danger: true },
];

/** The members as a table (same data as the graph) with the per-member one-click actions. */
export function MemberTable({ members, onAction }: { members: Member[]; onAction: (action: MemberAction, member: Member) => void }) {
  return (
    <DataTable
      className={styles.members}
      caption="Members with role, health, raft term and indexes, lag and actions"
      columns={['Member', 'Role', 'Health', 'Term', 'Raft index', 'Applied index', 'Lag', 'Actions']}
      rows={members}
      row={(m) => {
        // The API says which actions apply to this member and why any must wait.
        const buttons = BUTTONS.flatMap((b) => {
          const offer = m.actions[b.key];
          return offer ? [{ ...b, why: offer.unavailable ?? undefined }] : [];
        });
        const promotion = m.role === 'learner' ? m.promotion : null;
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
              <HealthBadge health={m.healthVerdict.health} title={m.healthVerdict.message} />
            </td>
            <td className={styles.num}>{m.raftTerm ?? '—'}</td>
            <td className={styles.num}>{m.raftIndex ?? '—'}</td>
            <td className={styles.num}>{m.raftAppliedIndex ?? '—'}</td>
            <td className={styles.num} data-testid={`member-lag-${m.name}`}>
              {m.lag ?? '—'}
              {promotion ? (
                <span className={`muted ${styles.why}`} data-testid={`member-promotion-${m.name}`}>
                  {promotion.lagText}, {promotion.pollsText}
                </span>
              ) : null}
            </td>
            <td>
              <div className={styles.actions}>
                {buttons.map((a) => (
                  <ActionButton
                    key={a.action}
                    procedure={a.procedure}
                    data-testid={a.testid(m.name)}
                    className={a.danger ? 'danger' : undefined}
                    disabled={a.why !== undefined}
                    title={a.why}
                    aria-label={`${a.label}: ${m.name}${a.why ? ` (unavailable: ${a.why})` : ''}`}
                    onClick={() => onAction(a.action, m)}
                  >
                    {a.label}
                  </ActionButton>
                ))}
              </div>
              {promotion && !promotion.ready ? (
                <span className={`warning ${styles.why}`} data-testid={`promote-waits-${m.name}`}>
                  Promote waits: {promotion.message}
                </span>
              ) : null}
            </td>
          </tr>
        );
      }}
    />
  );
}

'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MembershipAction } from '@orrery/api';
import { registryRequestStatus, type TrackedRegistryRequest } from '@orrery/spec';
import { ActionButton } from '../../../../components/action-button.tsx';
import { ConfirmDialog } from '../../../../components/confirm-dialog.tsx';
import { HealthBadge } from '../../../../components/health-badge.tsx';
import { QueryState } from '../../../../components/query-state.tsx';
import { LIVE_INTERVAL_MS } from '../../../../lib/live.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { InstancesBrowser } from './instances-browser.tsx';
import { MemberTable } from './member-table.tsx';
import { MembershipGraph } from './membership-graph.tsx';
import type { Member } from './members-output.ts';
import styles from './registry.module.css';

/** While a request is in flight the page polls faster, so progress shows promptly. */
const TRACKING_INTERVAL_MS = 1_000;

interface Ask {
  action: MembershipAction;
  member?: Member;
  /** promote without the catch-up rule (registry.forcePromote, admin). */
  force?: boolean;
}

const TITLE: Record<MembershipAction, (m?: Member, force?: boolean) => string> = {
  'add-learner': () => 'Add a learner?',
  promote: (m, force) => (force ? `Force-promote ${m?.name} to voter before it has caught up?` : `Promote ${m?.name} to voter?`),
  'transfer-leader': (m) => `Transfer leadership to ${m?.name}?`,
  remove: (m) => `Remove ${m?.role} ${m?.name}?`,
};
/** Which of a member's offers (registry.members) each asked action shows. */
const MEMBER_OFFER: Record<Exclude<MembershipAction, 'add-learner'>, keyof Member['actions']> = { promote: 'promote', remove: 'remove', 'transfer-leader': 'transferLeader' };
const CONFIRM: Record<MembershipAction, string> = { 'add-learner': 'Add learner', promote: 'Promote', 'transfer-leader': 'Transfer leadership', remove: 'Remove' };

/** One RegistryCluster: membership graph and table, one-click actions with live progress, instances. */
export default function RegistryClusterPage() {
  const params = useParams<{ namespace: string; cluster: string }>();
  const namespace = decodeURIComponent(params.namespace);
  const cluster = decodeURIComponent(params.cluster);
  const ref = { namespace, cluster };
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [ask, setAsk] = useState<Ask | null>(null);
  const [tracked, setTracked] = useState<TrackedRegistryRequest | null>(null);
  const membersKey = trpc.registry.members.queryKey(ref);
  const members = useQuery(
    trpc.registry.members.queryOptions(ref, {
      refetchInterval: (q) => (tracked && registryRequestStatus(tracked, q.state.data, q.state.dataUpdatedAt).phase !== 'done' ? TRACKING_INTERVAL_MS : LIVE_INTERVAL_MS),
    }),
  );

  const onSent = (label: string) => (r: { requestId: string }) => {
    setTracked({ requestId: r.requestId, label, sentAt: Date.now() });
    setAsk(null);
    void qc.invalidateQueries({ queryKey: membersKey });
  };
  const addLearner = useMutation(trpc.registry.addLearner.mutationOptions());
  const promote = useMutation(trpc.registry.promote.mutationOptions());
  const forcePromote = useMutation(trpc.registry.forcePromote.mutationOptions());
  const transferLeader = useMutation(trpc.registry.transferLeader.mutationOptions());
  const remove = useMutation(trpc.registry.remove.mutationOptions());
  const mutationFor = { 'add-learner': addLearner, promote, 'transfer-leader': transferLeader, remove } as const;
  const active = ask ? (ask.force ? forcePromote : mutationFor[ask.action]) : undefined;

  const confirm = () => {
    if (!ask) return;
    const m = ask.member;
    switch (ask.action) {
      case 'add-learner':
        addLearner.mutate(ref, { onSuccess: onSent('add learner') });
        break;
      case 'promote':
        if (ask.force) forcePromote.mutate({ ...ref, member: m!.name }, { onSuccess: onSent(`force-promote ${m!.name}`) });
        else promote.mutate({ ...ref, member: m!.name }, { onSuccess: onSent(`promote ${m!.name}`) });
        break;
      case 'transfer-leader':
        transferLeader.mutate({ ...ref, member: m!.name }, { onSuccess: onSent(`transfer leadership to ${m!.name}`) });
        break;
      case 'remove':
        remove.mutate({ ...ref, member: m!.name }, { onSuccess: onSent(`remove ${m!.name}`) });
        break;
    }
  };
  const openAsk = (a: Ask) => {
    for (const mu of [...Object.values(mutationFor), forcePromote]) mu.reset();
    setAsk(a);
  };

  const data = members.data;
  const list = data?.members ?? [];
  const learners = list.filter((m) => m.role === 'learner');
  const leader = list.find((m) => m.isLeader);
  const health = data?.health;
  const status = tracked ? registryRequestStatus(tracked, data, members.dataUpdatedAt) : undefined;

  // The API computes each action's effect on quorum and why it must wait; the page shows them.
  const effect = !ask ? undefined : ask.action === 'add-learner' ? data?.addLearner.effect : ask.member?.actions[MEMBER_OFFER[ask.action]]?.effect;
  const addLearnerBlocked = !data ? 'loading' : (data.addLearner.unavailable ?? undefined);

  return (
    <>
      <p>
        <Link href="/registry">← Registry clusters</Link>
      </p>
      <h1>
        RegistryCluster {namespace}/{cluster} {health ? <HealthBadge health={health.health} title={health.message} /> : null}
      </h1>
      <QueryState isLoading={members.isLoading} error={members.error} />
      {data ? (
        <>
          <section className="card" aria-labelledby="summary-title">
            <h2 id="summary-title" className="sr-only">
              Summary
            </h2>
            <p data-testid="cluster-summary">
              {data.quorum.voters} voters (desired {data.replicas}), quorum {data.quorum.quorum}, {data.quorum.healthyVoters} healthy; {learners.length} learner
              {learners.length === 1 ? '' : 's'}; leader <strong data-testid="cluster-leader">{leader?.name ?? 'none'}</strong>
              {health?.message ? <span className="muted"> — {health.message}</span> : null}
            </p>
            <div className={styles.actions}>
              <ActionButton
                procedure="registry.addLearner"
                className="primary"
                data-testid="add-learner"
                disabled={addLearnerBlocked !== undefined}
                title={addLearnerBlocked}
                onClick={() => openAsk({ action: 'add-learner' })}
              >
                Add learner
              </ActionButton>
              {addLearnerBlocked && data ? <span className="muted">{addLearnerBlocked}</span> : null}
            </div>
          </section>
          {tracked && status ? (
            <section
              className={`card ${styles.progress}`}
              role="status"
              aria-live="polite"
              data-testid="request-progress"
              data-phase={status.phase}
              data-outcome={status.phase === 'done' ? status.outcome : undefined}
            >
              <strong>{status.phase === 'done' ? `Done (${status.outcome})` : 'In progress…'}</strong> {status.text}{' '}
              <span className="muted">[{tracked.requestId}]</span>
            </section>
          ) : null}
            <section className="card" aria-labelledby="graph-title">
              <h2 id="graph-title">Membership</h2>
              {list.length > 0 ? <MembershipGraph members={list} /> : <p className="muted">The operator has not observed any member yet.</p>}
              <p className="muted">Circle V = voter, dashed square L = learner (replicates, does not vote); ♛ marks the leader; lines run from the leader to its followers.</p>
            </section>
            <section className="card" aria-labelledby="members-title">
              <h2 id="members-title">Members</h2>
              <MemberTable
                members={list}
                onAction={(action, member) => openAsk(action === 'force-promote' ? { action: 'promote', member, force: true } : { action, member })}
              />
              {data.pendingRequests.length > 0 ? (
                <>
                  <h3>Pending requests</h3>
                  <ul data-testid="pending-requests">
                    {data.pendingRequests.map((r) => (
                      <li key={r.id}>
                        <code>{r.id}</code> {r.action} {r.member ?? ''} {r.requestedBy ? <span className="muted">by {r.requestedBy}</span> : null}
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
              {data.lastRequest ? (
                <p data-testid="last-request">
                  Last request <code>{data.lastRequest.id}</code> ({data.lastRequest.action} {data.lastRequest.member ?? ''}):{' '}
                  <strong className={data.lastRequest.outcome === 'succeeded' ? undefined : 'error'}>{data.lastRequest.outcome}</strong> — {data.lastRequest.message}
                </p>
              ) : null}
              <h3>Conditions</h3>
              <ul>
                {data.conditions.map((c) => (
                  <li key={c.type}>
                    <strong>{c.type}</strong> {c.status} {c.reason ? `(${c.reason})` : ''} <span className="muted">{c.message}</span>
                  </li>
                ))}
              </ul>
            </section>
          <InstancesBrowser namespace={namespace} cluster={cluster} />
        </>
      ) : null}
      <ConfirmDialog
        open={ask !== null}
        title={ask ? TITLE[ask.action](ask.member, ask.force) : ''}
        confirmLabel={ask ? (ask.force ? 'Force promote' : CONFIRM[ask.action]) : 'Confirm'}
        danger={ask?.action === 'remove' || ask?.force}
        busy={active?.isPending}
        onConfirm={confirm}
        onCancel={() => setAsk(null)}
      >
        {effect ? (
          <>
            <p data-testid="quorum-effect">{effect.summary}.</p>
            {ask?.force && ask.member?.promotion ? (
              <p className="warning" data-testid="force-promote-warning">
                ⚠ {ask.member.name} is not caught up: {ask.member.promotion.message}. As a voter that is behind it can slow or block commits until it catches up; etcd still refuses below 90 % of the leader&apos;s index.
              </p>
            ) : null}
            {effect.warning ? (
              <p className="warning" data-testid="quorum-warning">
                ⚠ {effect.warning}.
              </p>
            ) : null}
            <p className="muted">The operator carries the request out; this page follows it until the operator reports the outcome.</p>
          </>
        ) : null}
        {active?.error ? (
          <p role="alert" className="error">
            {active.error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

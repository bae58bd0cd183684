import { setTimeout as sleep } from 'node:timers/promises';
import { memberIdHex as hex, noRetryClient } from '@orrery/etcdcluster';
import {
  learnerPromotion,
  type RegistryAddLearnerData,
  type RegistryAdminStatus,
  type RegistryLeaderTransferData,
  type RegistryMemberView,
  type RegistryPromoteData,
  type RegistryRemoveData,
  type RegistryReplicationStatus,
} from '@orrery/spec';
import { leaderByHighestTerm, memberStatus } from '../etcd/member-status.ts';
import type { ErrorCode } from '../http/envelope.ts';
import { learnerObservation, notCaughtUpMessage } from './learner-observation.ts';

/** The admin API's answers are defined in @orrery/spec (registry-admin-http.ts; the CLI reads the same schemas). */
export type MemberView = RegistryMemberView;
export type ClusterStatus = RegistryAdminStatus;

export class AdminError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}


/** Member ids are shown in hex (like etcdctl); accept "8e9e05c52164694d", "0x8e9e…" or decimal-free hex only. */
export function parseMemberId(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || !/^(0x)?[0-9a-fA-F]{1,16}$/.test(raw.trim())) {
    throw new AdminError('bad_request', `${field} must be a member id in hex as shown by /admin/v1/status, e.g. "8e9e05c52164694d"`);
  }
  const value = BigInt(raw.trim().startsWith('0x') ? raw.trim() : `0x${raw.trim()}`);
  if (value === 0n) throw new AdminError('bad_request', `${field} must not be 0`);
  return value.toString();
}

/**
 * etcd's refusals of membership and leadership calls, turned into messages that say what to do.
 * A timeout is the dangerous case: the change may or may not have been applied.
 */
export function explainConfChangeError(err: unknown, action: string): AdminError {
  const text = err instanceof Error ? err.message : String(err);
  const rules: Array<[RegExp, ErrorCode, string]> = [
    [/too many learner/i, 'conf_change_failed', 'the cluster already has as many learners as etcd allows (1); promote or remove the existing learner first'],
    [/in sync with leader/i, 'conf_change_failed', 'the learner has not caught up with the leader yet; wait until its raftAppliedIndex is close to the leader\'s (see /admin/v1/status) and promote again'],
    [/can only promote a learner/i, 'conf_change_failed', 'that member is not a learner (it already votes)'],
    [/not enough started members/i, 'conf_change_failed', 'refused: after this change too few started members would remain for a quorum; start the missing members first'],
    [/unhealthy cluster/i, 'conf_change_failed', 'refused: etcd only changes membership after all members have been healthy for ~5 s; wait and retry'],
    [/member not found/i, 'not_found', 'no member with that id'],
    [/peer ?urls? already exists|ID exists|member ID already exist/i, 'conf_change_failed', 'that peer URL already belongs to a member'],
    [/ID removed/i, 'conf_change_failed', 'that member was removed earlier; a removed id cannot come back'],
    [/bad leader transferee/i, 'bad_request', 'the target cannot become leader: it must be a started voting member other than the current leader'],
    [/learner.*not supported|rpc not supported for learner/i, 'conf_change_failed', 'a learner cannot serve this call'],
    [/not leader/i, 'not_leader', 'the member asked is not the leader (leadership moved); check /admin/v1/status and retry'],
    [/no leader|leader changed/i, 'not_leader', 'etcd has no stable leader right now; retry shortly'],
    [/deadline|timed out|timeout/i, 'conf_change_failed', 'etcd did not answer in time: the change may or may not have been applied. Check /admin/v1/status before trying again (it is not retried automatically)'],
    [/No connection established|ECONNREFUSED|UNAVAILABLE/i, 'conf_change_failed', 'could not reach the etcd member (nothing was sent); check the member and retry'],
  ];
  for (const [re, code, message] of rules) {
    if (re.test(text)) return new AdminError(code, `${action}: ${message} (etcd: ${text.split('\n')[0]})`);
  }
  return new AdminError('conf_change_failed', `${action} failed: ${text.split('\n')[0]}`);
}

/**
 * Membership and leadership over etcd's cluster and maintenance APIs. Every call here uses a
 * client that never retries (a repeated MemberAdd adds two members), and status and leader
 * transfer talk to each member / the leader directly rather than through a load-balanced pool.
 */
export class ClusterAdmin {
  /**
   * The gap between the promotion rule's two polls: ~1 s (the cadence of etcd's own status),
   * shorter with a short request timeout so both polls and the promote fit in it.
   */
  private readonly promotionPollMs: number;

  constructor(
    private readonly endpoints: () => string[],
    private readonly timeoutMs: number,
  ) {
    this.promotionPollMs = Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4)));
  }

  private async listMembers(): Promise<{ clusterId: string; members: Array<{ id: string; name: string; peerURLs: string[]; clientURLs: string[]; isLearner: boolean }> }> {
    let lastError: unknown;
    // Read-only, so asking each endpoint in turn is safe.
    for (const endpoint of this.endpoints()) {
      const client = noRetryClient(endpoint, Math.min(this.timeoutMs, 3000));
      try {
        const res = await client.cluster.memberList({ linearizable: true });
        return {
          clusterId: hex(res.header.cluster_id),
          members: res.members.map((m) => ({ id: hex(m.ID), name: m.name, peerURLs: m.peerURLs, clientURLs: m.clientURLs, isLearner: Boolean(m.isLearner) })),
        };
      } catch (err) {
        lastError = err;
      } finally {
        client.close();
      }
    }
    throw new AdminError('read_failed', `no etcd endpoint answered the member list: ${String((lastError as Error)?.message ?? lastError)}`);
  }

  async status(): Promise<ClusterStatus> {
    const { clusterId, members } = await this.listMembers();
    const views = await Promise.all(
      members.map(async (m): Promise<MemberView & { leaderSeen?: string }> => {
        const base = { ...m, isLeader: false, reachable: false, errors: [] as string[] };
        const url = m.clientURLs[0];
        if (!url) return { ...base, errors: ['not started yet (no client URL)'] };
        try {
          const s = await memberStatus(url, Math.min(this.timeoutMs, 2000));
          return {
            ...base,
            reachable: true,
            raftTerm: s.raftTerm,
            raftIndex: s.raftIndex,
            raftAppliedIndex: s.raftAppliedIndex,
            dbSize: s.dbSize,
            dbSizeInUse: s.dbSizeInUse,
            version: s.version,
            errors: s.errors,
            isLearner: s.isLearner || m.isLearner,
            leaderSeen: s.leaderId,
          };
        } catch (err) {
          return { ...base, errors: [String((err as Error).message).split('\n')[0]!] };
        }
      }),
    );
    const leaderId = leaderByHighestTerm(views.filter((v) => v.reachable).map((v) => ({ leaderId: v.leaderSeen, raftTerm: v.raftTerm ?? 0 })));
    const out: MemberView[] = views.map(({ leaderSeen: _l, ...v }) => ({ ...v, isLeader: v.id === leaderId }));
    const leader = out.find((v) => v.isLeader);
    return { clusterId, leader: leader ? { id: leader.id, name: leader.name } : null, members: out };
  }

  /** A client bound to one reachable voter (never a learner: learners refuse cluster calls). */
  private async voterClient(status?: ClusterStatus) {
    const s = status ?? (await this.status());
    const voter = s.members.find((m) => m.isLeader && m.reachable) ?? s.members.find((m) => m.reachable && !m.isLearner);
    const url = voter?.clientURLs[0];
    if (!url) throw new AdminError('not_ready', 'no reachable voting member to send the change to');
    return noRetryClient(url, this.timeoutMs);
  }

  async addLearner(name: string, peerURL: string): Promise<RegistryAddLearnerData> {
    const client = await this.voterClient();
    try {
      const res = await client.cluster.memberAdd({ peerURLs: [peerURL], isLearner: true });
      const id = hex(res.member.ID);
      const initialCluster = res.members
        .map((m) => `${m.ID === res.member.ID ? name : m.name}=${m.peerURLs[0] ?? ''}`)
        .filter((x) => !x.startsWith('='))
        .join(',');
      return {
        member: { id, name, peerURLs: res.member.peerURLs, isLearner: true },
        // What the new member's etcd must be started with.
        initialCluster,
        initialClusterState: 'existing',
      };
    } catch (err) {
      throw explainConfChangeError(err, `add learner ${name} (${peerURL})`);
    } finally {
      client.close();
    }
  }

  /**
   * MemberPromote, once learner `idDecimal` passes the shared promotion rule over two polls of
   * its status `promotionPollMs` apart (the first poll alone can already refuse). `force` skips
   * the rule; etcd's own 90 % check still applies.
   */
  async promote(idDecimal: string, force = false): Promise<RegistryPromoteData> {
    const target = hex(idDecimal);
    let status = await this.status();
    const member = status.members.find((m) => m.id === target);
    if (!member) throw new AdminError('not_found', `no member with id ${target}`);
    if (!member.isLearner) throw new AdminError('conf_change_failed', `promote ${target}: that member is not a learner (it already votes)`);
    let lag: number | null = null;
    if (!force) {
      const first = learnerObservation(status, target, new Date());
      let verdict = learnerPromotion(target, undefined, first);
      // With one poll the best verdict is "not stable yet"; anything else refuses already.
      if (verdict.ready || verdict.blocker === 'not-stable') {
        await sleep(this.promotionPollMs);
        status = await this.status();
        const second = learnerObservation(status, target, new Date());
        verdict = learnerPromotion(target, first, second);
        if (!verdict.ready) throw new AdminError('learner_not_caught_up', notCaughtUpMessage(verdict, second));
      } else {
        throw new AdminError('learner_not_caught_up', notCaughtUpMessage(verdict, first));
      }
      lag = verdict.lag;
    }
    const client = await this.voterClient(status);
    try {
      const res = await client.cluster.memberPromote({ ID: idDecimal });
      return {
        promoted: target,
        members: res.members.map((m) => ({ id: hex(m.ID), name: m.name, isLearner: Boolean(m.isLearner) })),
        forced: force,
        lag,
      };
    } catch (err) {
      throw explainConfChangeError(err, `promote ${target}${force ? ' (forced past the promotion rule)' : ''}`);
    } finally {
      client.close();
    }
  }

  async remove(idDecimal: string): Promise<RegistryRemoveData> {
    const status = await this.status();
    const target = hex(idDecimal);
    if (!status.members.some((m) => m.id === target)) throw new AdminError('not_found', `no member with id ${target}`);
    // Send the removal to a member that stays, so the answer is not lost with the removed one.
    const stay = status.members.find((m) => m.id !== target && m.reachable && !m.isLearner && m.isLeader) ??
      status.members.find((m) => m.id !== target && m.reachable && !m.isLearner);
    if (!stay?.clientURLs[0]) throw new AdminError('not_ready', 'no other reachable voting member to send the removal to');
    const client = noRetryClient(stay.clientURLs[0], this.timeoutMs);
    try {
      const res = await client.cluster.memberRemove({ ID: idDecimal });
      return { removed: target, members: res.members.map((m) => ({ id: hex(m.ID), name: m.name, isLearner: Boolean(m.isLearner) })) };
    } catch (err) {
      throw explainConfChangeError(err, `remove ${target}`);
    } finally {
      client.close();
    }
  }

  /** MoveLeader only works on the current leader, so it is sent there and nowhere else. */
  async transferLeader(targetDecimal: string): Promise<RegistryLeaderTransferData> {
    const status = await this.status();
    const target = hex(targetDecimal);
    const leader = status.members.find((m) => m.isLeader);
    if (!leader?.clientURLs[0]) throw new AdminError('not_leader', 'the cluster has no reachable leader right now; retry shortly');
    const t = status.members.find((m) => m.id === target);
    if (!t) throw new AdminError('not_found', `no member with id ${target}`);
    if (t.isLearner) throw new AdminError('bad_request', `member ${target} is a learner; promote it before moving leadership to it`);
    if (t.isLeader) return { leader: target, from: target, changed: false };
    const client = noRetryClient(leader.clientURLs[0], this.timeoutMs);
    try {
      await client.maintenance.moveLeader({ targetID: targetDecimal });
      return { leader: target, from: leader.id, changed: true };
    } catch (err) {
      throw explainConfChangeError(err, `transfer leadership from ${leader.id} to ${target}`);
    } finally {
      client.close();
    }
  }

  /** Raft replication progress per member, relative to the leader. */
  async replicationStatus(): Promise<Omit<RegistryReplicationStatus, 'registry' | 'targets'>> {
    const status = await this.status();
    const leader = status.members.find((m) => m.isLeader);
    return {
      clusterId: status.clusterId,
      leader: status.leader,
      members: status.members.map((m) => ({
        id: m.id,
        name: m.name,
        isLearner: m.isLearner,
        isLeader: m.isLeader,
        reachable: m.reachable,
        raftIndex: m.raftIndex,
        raftAppliedIndex: m.raftAppliedIndex,
        lag: leader?.raftIndex !== undefined && m.raftAppliedIndex !== undefined ? Math.max(0, leader.raftIndex - m.raftAppliedIndex) : null,
      })),
    };
  }
}

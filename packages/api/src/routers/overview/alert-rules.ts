/**
 * The overview's alert rules with their thresholds. Pure: inputs are what the overview procedure
 * already read (statesvc usage, sticky rollups, registry members, statesync replicas).
 */
import {
  functionStickyPath,
  HOT_KEY_ALERT_DEFAULT_SHARE,
  HOT_KEY_ALERT_MIN_RATE,
  HOT_KEY_OWNER_BUSY_ALERT_MIN_RATE,
  HOT_KEY_OWNER_BUSY_ALERT_SHARE,
  hotKeysPath,
  observationBlocker,
  registryClusterPath,
  statePath,
  stateSyncPath,
} from '@orrery/spec';
import { isBackingOff } from '../../health/statesync-replica-health.ts';

export type AlertSeverity = 'critical' | 'warning';
export type AlertKind = 'keyspace-quota' | 'namespace-quota' | 'teleport-spike' | 'learner-lag' | 'statesync-backoff' | 'hot-key' | 'hot-key-owner';

export interface Alert {
  severity: AlertSeverity;
  kind: AlertKind;
  message: string;
  /** Console path of the object to look at. */
  link: string;
}

/** A keyspace's keys or a namespace's bytes above this share of its quota raise a warning… */
export const QUOTA_WARNING_PERCENT = 90;
/** …and at the quota writes are refused, so it becomes critical. */
export const QUOTA_CRITICAL_PERCENT = 100;

/** Teleports in one recent minute count as a spike when at least this many… */
export const TELEPORT_SPIKE_MIN = 5;
/** …and at least this many times the per-minute average of the rest of the window. */
export const TELEPORT_SPIKE_FACTOR = 3;
/** The minutes that count as "now": the current (partial) minute and the one before. */
export const TELEPORT_RECENT_MINUTES = 2;
/** The baseline window, in minutes, ending at now (the recent minutes are not part of the baseline). */
export const TELEPORT_WINDOW_MINUTES = 60;

/** A statesync replica backing off this long (seconds) is critical rather than a warning. */
export const STATESYNC_BACKOFF_CRITICAL_SECONDS = 60;

const pct = (part: number, whole: number) => Math.round((part / whole) * 1000) / 10;
const severityFor = (percent: number): AlertSeverity => (percent >= QUOTA_CRITICAL_PERCENT ? 'critical' : 'warning');

export interface NamespaceUsageInput {
  namespace: string;
  bytes: number;
  byteBudget: number;
  /** maxKeys is null for a keyspace no Function declares (data left behind): never alerted. */
  keyspaces: ReadonlyArray<{ keyspace: string; keys: number; maxKeys: number | null }>;
}

/** Keyspaces whose keys exceed 90 % of maxKeys, and namespaces whose bytes exceed 90 % of the byte budget (0 = no limit). */
export function quotaAlerts(namespaces: readonly NamespaceUsageInput[]): Alert[] {
  const out: Alert[] = [];
  for (const n of namespaces) {
    for (const k of n.keyspaces) {
      if (k.maxKeys === null || !(k.maxKeys > 0)) continue;
      const p = pct(k.keys, k.maxKeys);
      if (p > QUOTA_WARNING_PERCENT) {
        out.push({ severity: severityFor(p), kind: 'keyspace-quota', message: `keyspace ${n.namespace}/${k.keyspace} holds ${k.keys} of ${k.maxKeys} keys (${p} %)`, link: statePath(n.namespace, k.keyspace) });
      }
    }
    if (n.byteBudget > 0) {
      const p = pct(n.bytes, n.byteBudget);
      if (p > QUOTA_WARNING_PERCENT) {
        out.push({ severity: severityFor(p), kind: 'namespace-quota', message: `namespace ${n.namespace} uses ${n.bytes} of ${n.byteBudget} bytes (${p} %)`, link: statePath(n.namespace) });
      }
    }
  }
  return out;
}

export interface TeleportPoint {
  namespace: string;
  function: string;
  /** Start of the minute. */
  minute: Date;
  teleports: number;
}

/**
 * A function whose teleports in a recent minute reach TELEPORT_SPIKE_MIN and TELEPORT_SPIKE_FACTOR
 * times its baseline (the average per minute over the rest of the window; minutes without a
 * rollup row count as 0, since the collector writes only minutes with traffic).
 */
export function teleportSpikeAlerts(points: readonly TeleportPoint[], now: Date): Alert[] {
  const nowMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  const recentFrom = nowMinute - (TELEPORT_RECENT_MINUTES - 1) * 60_000;
  const windowFrom = nowMinute - (TELEPORT_WINDOW_MINUTES - 1) * 60_000;
  const byFn = new Map<string, { namespace: string; function: string; recentMax: number; baselineSum: number }>();
  for (const p of points) {
    const t = p.minute.getTime();
    if (t < windowFrom || t > nowMinute) continue;
    const key = `${p.namespace}/${p.function}`;
    let f = byFn.get(key);
    if (!f) byFn.set(key, (f = { namespace: p.namespace, function: p.function, recentMax: 0, baselineSum: 0 }));
    if (t >= recentFrom) f.recentMax = Math.max(f.recentMax, p.teleports);
    else f.baselineSum += p.teleports;
  }
  const baselineMinutes = TELEPORT_WINDOW_MINUTES - TELEPORT_RECENT_MINUTES;
  const out: Alert[] = [];
  for (const f of byFn.values()) {
    const baseline = f.baselineSum / baselineMinutes;
    if (f.recentMax >= TELEPORT_SPIKE_MIN && f.recentMax >= TELEPORT_SPIKE_FACTOR * baseline) {
      out.push({
        severity: 'warning',
        kind: 'teleport-spike',
        message: `function ${f.namespace}/${f.function}: ${f.recentMax} teleports in a minute (baseline ${Math.round(baseline * 10) / 10}/min): sticky owners are moving`,
        link: functionStickyPath(f.namespace, f.function),
      });
    }
  }
  return out;
}

export interface ClusterMembersInput {
  namespace: string;
  name: string;
  members: ReadonlyArray<{ name: string; role: 'voter' | 'learner'; isLeader: boolean; raftIndex?: number; raftAppliedIndex?: number }>;
}

/**
 * Learners too far behind to be promoted by the promotion rule of @orrery/spec (more than 100
 * entries behind the leader's committed index, or below etcd's 90 % floor), from the members
 * table alone: the rule's other parts (two polls, health) are the member page's business.
 * Without a leader index there is no lag to measure (health shows that).
 */
export function learnerLagAlerts(clusters: readonly ClusterMembersInput[]): Alert[] {
  const out: Alert[] = [];
  for (const c of clusters) {
    const leader = c.members.find((m) => m.isLeader);
    if (leader?.raftIndex === undefined) continue;
    for (const m of c.members) {
      if (m.role !== 'learner') continue;
      // A learner without an applied index has applied nothing we know of.
      const look = { member: m.name, healthy: true, appliedIndex: m.raftAppliedIndex ?? 0, leader: leader.name, leaderCommittedIndex: leader.raftIndex, observedAt: '' };
      const blocked = observationBlocker(look);
      if (blocked?.blocker !== 'lagging' && blocked?.blocker !== 'below-etcd-ratio') continue;
      out.push({ severity: 'warning', kind: 'learner-lag', message: `registry ${c.namespace}/${c.name}: ${blocked.message}`, link: registryClusterPath(c.namespace, c.name) });
    }
  }
  return out;
}

export interface StateSyncReplicasInput {
  namespace: string;
  name: string;
  /** spec.syncPeriod in seconds: a wait of one period is the normal cadence. */
  periodSeconds?: number;
  replicas: ReadonlyArray<{ replica: string; syncable?: string; backoffSeconds: number; lastError?: string }>;
}

/** Statesync replicas backing off after failed cycles (critical after a minute). */
export function stateSyncBackoffAlerts(syncs: readonly StateSyncReplicasInput[]): Alert[] {
  const out: Alert[] = [];
  for (const s of syncs) {
    for (const r of s.replicas) {
      if (!isBackingOff(r, s.periodSeconds ?? 10)) continue;
      out.push({
        severity: r.backoffSeconds >= STATESYNC_BACKOFF_CRITICAL_SECONDS ? 'critical' : 'warning',
        kind: 'statesync-backoff',
        message: `statesync ${s.namespace}/${s.name}: replica ${r.replica}${r.syncable ? `/${r.syncable}` : ''} backing off ${r.backoffSeconds} s${r.lastError ? ` after: ${r.lastError}` : ''}`,
        link: stateSyncPath(s.namespace, s.name),
      });
    }
  }
  return out;
}

export interface KeyspaceHotKeysInput {
  namespace: string;
  keyspace: string;
  /** The keyspace's keyed requests per second (decayed). */
  rate: number;
  /** Its hottest key: `label` is the key, or its keyed hash for a viewer. */
  top?: { label: string; rate: number; share: number };
}

export interface StickyHotKeysInput {
  namespace: string;
  function: string;
  /** The keyspace whose page shows this function's sticky keys (null: the function page). */
  keyspace: string | null;
  keys: ReadonlyArray<{ label: string; rate: number; ownerBusyShare: number; owner: { address: string } | null }>;
}

const pctText = (share: number) => `${Math.round(share * 1000) / 10} %`;
const rateText = (rate: number) => `${Math.round(rate * 10) / 10}/s`;

/**
 * One key taking more than `share` (default 20 %) of a keyspace's requests, once the keyspace
 * carries at least HOT_KEY_ALERT_MIN_RATE requests a second; and a sticky key whose requests found
 * its owner worker at its limit at least half the time (HOT_KEY_OWNER_BUSY_ALERT_SHARE) at a rate of
 * at least one a second: one worker serves that key alone, and the key outgrew it.
 */
export function hotKeyAlerts(keyspaces: readonly KeyspaceHotKeysInput[], sticky: readonly StickyHotKeysInput[], share = HOT_KEY_ALERT_DEFAULT_SHARE): Alert[] {
  const out: Alert[] = [];
  for (const k of keyspaces) {
    if (!k.top || k.rate < HOT_KEY_ALERT_MIN_RATE || !(k.top.share > share)) continue;
    out.push({
      severity: 'warning',
      kind: 'hot-key',
      message: `keyspace ${k.namespace}/${k.keyspace}: key ${k.top.label} takes ${pctText(k.top.share)} of its requests (${rateText(k.top.rate)} of ${rateText(k.rate)}; alert above ${pctText(share)})`,
      link: hotKeysPath(k.namespace, k.keyspace),
    });
  }
  for (const f of sticky) {
    for (const key of f.keys) {
      if (key.rate < HOT_KEY_OWNER_BUSY_ALERT_MIN_RATE || key.ownerBusyShare < HOT_KEY_OWNER_BUSY_ALERT_SHARE) continue;
      out.push({
        severity: 'warning',
        kind: 'hot-key-owner',
        message: `function ${f.namespace}/${f.function}: sticky key ${key.label} keeps its owner${key.owner ? ` ${key.owner.address}` : ''} saturated (${pctText(key.ownerBusyShare)} of its ${rateText(key.rate)} found it at its concurrency limit)`,
        link: f.keyspace ? hotKeysPath(f.namespace, f.keyspace) : functionStickyPath(f.namespace, f.function),
      });
    }
  }
  return out;
}

/** Critical first, then by kind and message, so the list does not reshuffle between polls. */
export function sortAlerts(alerts: readonly Alert[]): Alert[] {
  const rank = (a: Alert) => (a.severity === 'critical' ? 0 : 1);
  return [...alerts].sort((a, b) => rank(a) - rank(b) || a.kind.localeCompare(b.kind) || a.message.localeCompare(b.message));
}

/**
 * `orrery describe function NAME` as text (kubectl describe's shape): the function, its traffic
 * split, its revisions (ready, workers, age, percent, tags), its cron triggers and their last runs, its conditions and those of the
 * revisions that are not ready, recent Events when the platform records them, and the last
 * errors of its workers. Pure: the command gathers the data, this lays it out.
 */
import { buildLines } from './build-description.ts';
import { revisionNumber, type Condition, type OrreryFunction, type Revision } from '@orrery/spec';
import { formatTraffic } from '../functions/traffic-notation.ts';
import { formatAge } from '../resources/age.ts';
import { cronTriggerLines } from './cron-trigger-description.ts';
import type { WorkerError } from './worker-errors.ts';

/** A Kubernetes Event about the function or one of its revisions. */
export interface DescribedEvent {
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
  lastSeen?: string;
}

export interface FunctionDescriptionInput {
  fn: OrreryFunction;
  revisions: readonly Revision[];
  /** undefined: this platform keeps no Events (the local one); [] none recorded. */
  events: readonly DescribedEvent[] | undefined;
  /** undefined: worker logs are not readable from here (with why). */
  workerErrors: readonly WorkerError[] | { unavailable: string };
  now: Date;
}

function table(header: string[], rows: string[][], indent = '  '): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => indent + cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)];
}

function readyText(conditions: readonly Condition[] | undefined): string {
  const c = conditions?.find((x) => x.type === 'Ready');
  if (!c) return 'Unknown';
  return c.status === 'True' || !c.reason ? c.status : `${c.status} (${c.reason})`;
}

function conditionRows(conditions: readonly Condition[] | undefined, now: Date): string[][] {
  return (conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.lastTransitionTime ? formatAge(c.lastTransitionTime, now) : '<unknown>', c.message ?? '']);
}

const CONDITION_HEADER = ['TYPE', 'STATUS', 'REASON', 'SINCE', 'MESSAGE'];

export function describeFunction({ fn, revisions, events, workerErrors, now }: FunctionDescriptionInput): string {
  const t = fn.spec.template;
  const state = fn.spec.state;
  const sorted = [...revisions].sort((a, b) => revisionNumber(b.metadata.name) - revisionNumber(a.metadata.name));
  const served = fn.status?.traffic ?? [];
  const out: string[] = [
    `Name:          ${fn.metadata.name}`,
    `Namespace:     ${fn.metadata.namespace}`,
    `Age:           ${formatAge(fn.metadata.creationTimestamp, now)}`,
    `URL:           ${fn.status?.url ?? '<none>'}`,
    `Ready:         ${readyText(fn.status?.conditions)}`,
    `Latest:        ready ${fn.status?.latestReadyRevision ?? '<none>'}, created ${fn.status?.latestCreatedRevision ?? '<none>'}`,
    `Template:      environment ${t.environment}, executor ${t.executor}, entrypoint ${t.entrypoint}, concurrency ${t.containerConcurrency || 'unlimited'}, scale ${t.autoscaling.minScale ?? 0}:${t.autoscaling.maxScale ? t.autoscaling.maxScale : '∞'}, timeout ${t.timeoutSeconds}s`,
    `Source:        ${t.source.inline !== undefined ? `inline (${Buffer.byteLength(t.source.inline)} bytes)` : t.source.configMapRef ? `configmap ${t.source.configMapRef.name}/${t.source.configMapRef.key}` : t.source.package ? `package ${t.source.package.sha256.slice(0, 12)}${t.source.package.url ? ` from ${t.source.package.url.split('?')[0]}` : ''}` : `url ${t.source.url ?? '?'}`}`,
    `State:         ${state ? `keyspace ${state.keyspace ?? fn.metadata.name}${state.sticky ? `, sticky ${state.sticky.source}:${state.sticky.name}` : ''}` : '<none> (stateless)'}`,
    '',
    `Traffic:       ${formatTraffic(fn.spec.traffic)} (spec)`,
    `               ${served.length > 0 ? formatTraffic(served) : '<not resolved yet>'} (served)`,
    '',
    'Revisions:',
  ];
  if (sorted.length === 0) out.push('  <none>');
  else {
    out.push(
      ...table(
        ['NAME', 'READY', 'WORKERS', 'AGE', 'TRAFFIC', 'TAGS'],
        sorted.map((r) => {
          const targets = served.filter((s) => s.revisionName === r.metadata.name);
          const tags = targets.flatMap((s) => (s.tag ? [s.tag] : []));
          return [
            r.metadata.name,
            readyText(r.status?.conditions),
            `${r.status?.readyWorkers ?? 0}/${r.status?.desiredScale ?? 0}`,
            formatAge(r.metadata.creationTimestamp, now),
            `${targets.reduce((sum, s) => sum + s.percent, 0)}%`,
            tags.length > 0 ? tags.join(',') : '<none>',
          ];
        }),
      ),
    );
  }
  out.push(...buildLines(fn));
  out.push(...cronTriggerLines(fn, now, table));
  out.push('', 'Conditions:');
  const fnConditions = conditionRows(fn.status?.conditions, now);
  out.push(...(fnConditions.length > 0 ? table(CONDITION_HEADER, fnConditions) : ['  <none yet: the operator has not reconciled it>']));
  const failing = sorted.filter((r) => r.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True'));
  for (const r of failing) {
    out.push('', `Conditions of ${r.metadata.name}:`, ...table(CONDITION_HEADER, conditionRows(r.status?.conditions, now)));
  }
  out.push('', 'Events:');
  if (events === undefined) out.push("  <not readable here (the local operator's need its store token: --data-dir or --store-token-file); each condition above shows since when it holds>");
  else if (events.length === 0) out.push('  <none>');
  else {
    out.push(
      ...table(
        ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
        events.map((e) => [e.lastSeen ? formatAge(e.lastSeen, now) : '<unknown>', e.type, e.reason, e.object, `${e.message}${e.count > 1 ? ` (x${e.count})` : ''}`]),
      ),
    );
  }
  out.push('', 'Worker errors:');
  if ('unavailable' in workerErrors) out.push(`  <${workerErrors.unavailable}>`);
  else if (workerErrors.length === 0) out.push('  <none>');
  else out.push(...workerErrors.map((e) => `  [${e.worker}]${e.ts ? ` ${formatAge(e.ts, now)} ago` : ''} ${e.message}${e.count ? ` (x${e.count})` : ''}`));
  return `${out.join('\n')}\n`;
}

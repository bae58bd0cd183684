import type { OrreryFunction } from '@orrery/spec';

type SpecTraffic = OrreryFunction['spec']['traffic'];
type StatusTraffic = NonNullable<NonNullable<OrreryFunction['status']>['traffic']>;

/** One line per function: the split as the operator resolved it, else as written, else the default. */
export function trafficSummary(spec: SpecTraffic, status: StatusTraffic | undefined): string {
  const part = (name: string, percent: number, tag?: string, latest?: boolean) => `${name} ${percent} %${tag ? ` #${tag}` : ''}${latest ? ' (latest)' : ''}`;
  if (status?.length) return status.map((t) => part(t.revisionName, t.percent, t.tag, t.latestRevision)).join(' · ');
  if (spec.length) return spec.map((t) => part(t.latestRevision ? 'latest' : (t.revisionName ?? '?'), t.percent, t.tag)).join(' · ');
  return '100 % to the latest ready revision (default)';
}

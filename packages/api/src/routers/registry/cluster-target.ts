/** Audit target `namespace/cluster[/member]` from raw (possibly invalid) input. */
export function clusterTarget(raw: Record<string, unknown>): string {
  const ns = typeof raw.namespace === 'string' ? raw.namespace : 'default';
  const member = typeof raw.member === 'string' ? `/${raw.member}` : '';
  return `${ns}/${typeof raw.cluster === 'string' ? raw.cluster : '?'}${member}`;
}

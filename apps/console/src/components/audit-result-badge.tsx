/** An audit row's result as a badge: the word and a glyph, never colour alone. */
export function AuditResultBadge({ result, title, testId }: { result: string; title?: string; testId?: string }) {
  const ok = result === 'ok';
  return (
    <span className={`badge ${ok ? 'health-Healthy' : 'health-Degraded'}`} title={title} data-testid={testId}>
      {ok ? '✓ ok' : '✕ error'}
    </span>
  );
}

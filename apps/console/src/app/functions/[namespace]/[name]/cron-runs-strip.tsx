import type { CronTriggerStatus } from '@orrery/spec';

type Run = NonNullable<CronTriggerStatus['runs']>[number];

/** One colour per outcome the operator reports (the operator decides the outcome; this only paints it). */
const FILL: Record<Run['outcome'], string> = {
  Succeeded: 'var(--healthy)',
  Failed: 'var(--degraded)',
  Running: 'var(--progressing)',
  Skipped: 'var(--unknown)',
  Missed: 'var(--warning)',
};
const SIZE = 14;
const GAP = 4;

/** The last runs of one cron trigger as a row of squares, oldest left; each square's title tells the run. */
export function CronRunsStrip({ name, runs }: { name: string; runs: readonly Run[] }) {
  if (runs.length === 0) return <span className="muted">no runs yet</span>;
  const width = runs.length * (SIZE + GAP) - GAP;
  return (
    <svg role="img" aria-label={`Last ${runs.length} runs of ${name}, oldest first: ${runs.map((r) => r.outcome).join(', ')}`} width={width} height={SIZE} data-testid={`cron-runs-${name}`}>
      {runs.map((r, i) => (
        <rect key={r.scheduledTime} x={i * (SIZE + GAP)} y={0} width={SIZE} height={SIZE} rx={3} fill={FILL[r.outcome]} data-outcome={r.outcome}>
          <title>{`${new Date(r.scheduledTime).toLocaleString()}: ${r.outcome}${r.statusCode ? ` (HTTP ${r.statusCode})` : ''}${r.durationMs !== undefined ? `, ${r.durationMs} ms` : ''}${r.message ? ` — ${r.message}` : ''}`}</title>
        </rect>
      ))}
    </svg>
  );
}

import type { Health } from '@orrery/api';

/** Argo-CD-style health: one word, one colour (the colours live in globals.css); the API decides which. */
export type { Health };

const GLYPH: Record<Health, string> = { Healthy: '●', Progressing: '◐', Degraded: '✕', Unknown: '?' };

export function HealthBadge({ health, title }: { health: Health; title?: string }) {
  return (
    <span className={`badge health-${health}`} title={title} data-health={health}>
      {GLYPH[health]} {health}
    </span>
  );
}

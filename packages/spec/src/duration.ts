import { z } from 'zod';

/**
 * Durations are written as in Kubernetes and Knative: "500ms", "30s", "1m", "1h30m".
 * Only strings, so the CRD schema stays structural (one type per field).
 */
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const WHOLE = /^(\d+(?:\.\d+)?(ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for a duration string; NaN when unparseable. */
export function parseDurationMs(value: string): number {
  const text = value.trim();
  if (!WHOLE.test(text)) return Number.NaN;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNIT_MS[m[2]!] ?? Number.NaN);
  return total;
}

export const DurationSchema = z
  .string()
  .refine((v) => !Number.isNaN(parseDurationMs(v)), {
    message: 'must be a duration such as "500ms", "30s", "2m" or "1h30m"',
  });
export type Duration = z.infer<typeof DurationSchema>;

import { z } from 'zod';
import { says } from './validate/reasons.ts';

/**
 * Durations are written as in Kubernetes and Knative: "500ms", "30s", "1m", "1h30m" ("0" alone is 0).
 * Only strings, so the CRD schema stays structural (one type per field).
 */
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const WHOLE = /^(\d+(?:\.\d+)?(ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for a duration string; NaN when unparseable (negative durations are NaN too). */
export function parseDurationMs(value: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  if (!WHOLE.test(text)) return Number.NaN;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * (UNIT_MS[m[2]!] ?? Number.NaN);
  return total;
}

/**
 * Like parseDurationMs but accepts a leading "-" as Go's time.ParseDuration does, so that
 * validation can say "must be >= 0" instead of "not a duration" for "-5s".
 */
export function parseSignedDurationMs(value: string): number {
  const text = value.trim();
  return text.startsWith('-') ? -parseDurationMs(text.slice(1)) : parseDurationMs(text);
}

export const DurationSchema = z
  .string()
  .refine((v) => !Number.isNaN(parseDurationMs(v)), {
    message: says('duration_format'),
  });
export type Duration = z.infer<typeof DurationSchema>;

// Bounded durations (a field rule with a CEL twin for the CRD): validate/rules/duration-rules.ts.

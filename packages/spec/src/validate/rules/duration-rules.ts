import { z } from 'zod';
import { parseSignedDurationMs } from '../../duration.ts';
import { says, type Reason } from '../reasons.ts';
import { type ObjectRule, withCel } from './object-rule.ts';

/**
 * Durations as Orrery writes them ("500ms", "30s", "1h30m", "0"), with an optional sign so a
 * negative value is reported by its bound ("must be >= 0") rather than as a format error.
 * Every such string is also a Go duration, which CEL's `duration()` reads.
 */
export const DURATION_PATTERN = /^-?(0|([0-9]+(\.[0-9]+)?(ms|s|m|h))+)$/;
/** Longest duration string (CEL's cost estimate needs a bound on strings it matches). */
export const MAX_DURATION_LENGTH = 32;

export const DURATION_FORMAT: ObjectRule = {
  reason: 'duration_format',
  cel: `self.matches('${DURATION_PATTERN.source.replaceAll('\\', '\\\\')}')`,
  holds: (v) => typeof v !== 'string' || DURATION_PATTERN.test(v),
};

export interface DurationBounds {
  /** Reason reported when the value parses but is out of bounds. */
  reason: Reason;
  minMs?: number;
  /** True when the minimum itself is not allowed (`> minMs`). */
  exclusiveMin?: boolean;
  maxMs?: number;
  wholeSeconds?: boolean;
}

/** `duration(...)` of a CEL string expression; cel-js does not read a bare "0" as Go does. */
export function celDuration(expr: string): string {
  return `duration(${expr} in ['0', '-0'] ? '0s' : ${expr})`;
}

/** A CEL duration literal for a number of milliseconds, in the largest whole unit. */
export function celDurationLiteral(ms: number): string {
  const unit = ([[3_600_000, 'h'], [60_000, 'm'], [1000, 's']] as const).find(([n]) => ms % n === 0 && ms !== 0);
  return `duration('${unit ? `${ms / unit[0]}${unit[1]}` : `${ms}ms`}')`;
}

/** True when `ms` (a parsed duration) is within `bounds`. */
export function withinBounds(ms: number, bounds: DurationBounds): boolean {
  if (bounds.minMs !== undefined && (bounds.exclusiveMin ? ms <= bounds.minMs : ms < bounds.minMs)) return false;
  if (bounds.maxMs !== undefined && ms > bounds.maxMs) return false;
  if (bounds.wholeSeconds && ms % 1000 !== 0) return false;
  return true;
}

/** The bounds of one duration field as a rule; a value of the wrong format holds (DURATION_FORMAT reports it). */
export function durationBoundRule(bounds: DurationBounds): ObjectRule {
  // The API server's CRD validation has no cel.bind, so the parsed duration is spelled out each time.
  const d = celDuration('self');
  const checks: string[] = [];
  if (bounds.minMs !== undefined) checks.push(`${d} ${bounds.exclusiveMin ? '>' : '>='} ${celDurationLiteral(bounds.minMs)}`);
  if (bounds.maxMs !== undefined) checks.push(`${d} <= ${celDurationLiteral(bounds.maxMs)}`);
  if (bounds.wholeSeconds) checks.push(`${d}.getMilliseconds() % 1000 == 0`);
  return {
    reason: bounds.reason,
    cel: `!${DURATION_FORMAT.cel} || (${checks.join(' && ')})`,
    holds: (v) => typeof v !== 'string' || !DURATION_PATTERN.test(v) || withinBounds(parseSignedDurationMs(v), bounds),
  };
}

/** A duration field with bounds: zod refinements for validate() and their CEL twins for the CRD. */
export function boundedDuration(bounds: DurationBounds) {
  const bound = durationBoundRule(bounds);
  const schema = z
    .string()
    .max(MAX_DURATION_LENGTH, says('duration_format'))
    .refine(DURATION_FORMAT.holds, { message: says('duration_format') })
    .refine(bound.holds, { message: says(bounds.reason) });
  return withCel(schema, [DURATION_FORMAT, bound]);
}

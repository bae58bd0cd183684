import type { z } from 'zod';
import { formatPath, valueAt } from './path.ts';
import { readReason, REASONS, type Reason } from './reasons.ts';
import type { ValidationError } from './types.ts';

const GENERIC: Record<string, Reason> = {
  invalid_type: 'type',
  invalid_value: 'enum',
  invalid_format: 'format',
  too_small: 'min',
  too_big: 'max',
  unrecognized_keys: 'unknown_field',
  invalid_union: 'type',
};

/**
 * Zod issues → validation errors. Field rules in the kind schemas carry their reason in the
 * message (`[reason] text`); everything else gets a generic code from the zod issue code.
 */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], raw: unknown): ValidationError[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    if (valueAt(raw, issue.path) === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
      return { path, reason: 'required', message: `${path} is required` };
    }
    const got = shown(valueAt(raw, issue.path));
    const coded = readReason(issue.message);
    if (coded) return { path, reason: coded.reason, message: `${coded.message}${got}` };
    const reason = GENERIC[issue.code] ?? 'invalid';
    return { path, reason, message: `${issue.message} (${REASONS[reason]})${got}` };
  });
}

/** ` (got "a:b")` for scalars, so the message names the offending value. */
function shown(value: unknown): string {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return ` (got ${JSON.stringify(value)})`;
  return '';
}

import type { z } from 'zod';

export type CheckedAnswer<T> = { ok: true; value: T } | { ok: false; problem: string };

/** A wire schema whose parsed value is T (so callers need not import zod to name one). */
export type WireSchema<T> = z.ZodType<T>;

/**
 * Checks a body another service answered against its wire schema, for clients that read it (the
 * admin API, the CLI). A mismatch comes back as one readable line naming the first bad field,
 * which the caller reports as a bad_response: a contract mismatch, usually a version skew.
 */
export function checkAnswer<T>(schema: WireSchema<T>, body: unknown): CheckedAnswer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : '';
  return { ok: false, problem: `${where}: ${issue.message}${more}` };
}

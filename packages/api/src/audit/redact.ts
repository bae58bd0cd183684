import { redactEnvList } from './redact-env-values.ts';

/** Secret-looking field names; `…Ref` fields (secretKeyRef, urlSecretRef) name a Secret, not its value. */
const SECRET_KEY = /token|password|secret|signature|masterkey/i;

// Postgres jsonb refuses U+0000 in strings: a NUL in a refused call's input must not make the
// audit write fail (and the row go missing).
const noNul = (s: string): string => s.replaceAll('\0', '\uFFFD');

/**
 * A copy of a call's input safe to store: secret-looking fields become "[redacted]", so do the
 * values of every `env` list (a Function template's plain env values; valueFrom references stay),
 * size bounded (see audit-input-cap.ts for the byte cap).
 */
export function redactInput(input: unknown, depth = 0): unknown {
  if (typeof input === 'string') return noNul(input.length > 2000 ? `${input.slice(0, 2000)}…` : input);
  if (input === null || typeof input !== 'object') return input;
  if (depth > 8) return '[truncated]';
  if (Array.isArray(input)) return input.slice(0, 200).map((v) => redactInput(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    out[noNul(k)] = SECRET_KEY.test(k) && !k.endsWith('Ref') ? '[redacted]' : redactInput(k === 'env' ? redactEnvList(v) : v, depth + 1);
  }
  return out;
}

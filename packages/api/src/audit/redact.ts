const SECRET_KEY = /token|password|secret|signature|masterkey/i;

/** A copy of a call's input safe to store: secret-looking fields become "[redacted]", size bounded. */
export function redactInput(input: unknown, depth = 0): unknown {
  if (input === null || typeof input !== 'object') return typeof input === 'string' && input.length > 2000 ? `${input.slice(0, 2000)}…` : input;
  if (depth > 8) return '[truncated]';
  if (Array.isArray(input)) return input.slice(0, 200).map((v) => redactInput(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redactInput(v, depth + 1);
  return out;
}

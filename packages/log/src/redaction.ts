/**
 * Everything a log record must never show, in one place (docs/operations.md "Logs"):
 *
 * - FIELD_REDACT_PATHS: record fields that hold credentials (pino `redact`), replaced whole.
 * - Text rules for every string a record carries (message and field values): passwords in URLs,
 *   `password=`/`token=`-style pairs, bearer tokens, long hex strings (the platform's tokens and
 *   keys are hex), drizzle's `params:` line (a query's values: user data).
 * - Values registered at start with `registerSecret` (a token read from a file or the
 *   environment): any later occurrence anywhere in a record is masked, whatever its shape.
 */

export const REDACTED = '[redacted]';

const CREDENTIAL_KEYS = ['authorization', 'cookie', 'set-cookie', 'token', 'password', 'secret', 'credential', 'apiKey', 'api_key'];

const segment = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`);
const topLevel = (key: string): string => segment(key).replace(/^\./, '');

/** pino `redact` paths: a credential key at the top level, one level down, or in `*.headers`. */
export const FIELD_REDACT_PATHS: readonly string[] = [
  ...CREDENTIAL_KEYS.map(topLevel),
  ...CREDENTIAL_KEYS.map((k) => `*${segment(k)}`),
  ...['authorization', 'cookie', 'set-cookie', 'proxy-authorization'].map((k) => `*.headers${segment(k)}`),
];

type Replacement = string | ((match: string, ...groups: string[]) => string);

const TEXT_RULES: ReadonlyArray<readonly [RegExp, Replacement]> = [
  // scheme://user:password@host → scheme://user:***@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, '$1:***@'],
  [/\b(password|passwd|pwd|secret|token|api[-_]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/gi, '$1$2***'],
  // A short lowercase word after "bearer" is prose ("any bearer token is accepted"), not a credential.
  [/\b(bearer)\s+([^\s,;]+)/gi, (match, word, value) => (/^[a-z]{1,12}$/.test(value ?? '') ? match : `${word} ***`)],
  [/\b[0-9a-f]{32,}\b/gi, '***'],
  [/^(\s*params:).*$/gim, '$1 [redacted]'],
];

/** Shorter values would mask ordinary words; every credential the platform mints is far longer. */
export const MIN_SECRET_LENGTH = 6;

const registered = new Set<string>();
let registeredPattern: RegExp | undefined;

/**
 * Masks every later occurrence of `value` in log text. Call it once a secret is known (read from
 * its file or the environment), before anything logs it. Empty, missing and short values are
 * ignored (MIN_SECRET_LENGTH).
 */
export function registerSecret(value: string | undefined): void {
  const v = value?.trim();
  if (!v || v.length < MIN_SECRET_LENGTH || registered.has(v)) return;
  registered.add(v);
  // Longest first, so a secret that contains another is masked whole.
  const alternatives = [...registered].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  registeredPattern = new RegExp(alternatives.join('|'), 'g');
}

/** The password of a URL with credentials (`redis://:pw@host`), registered as a secret. */
export function registerUrlSecret(url: string | undefined): void {
  if (!url) return;
  try {
    registerSecret(decodeURIComponent(new URL(url).password));
    registerSecret(new URL(url).password);
  } catch {
    // not a URL: the text rules still cut `scheme://user:pw@` shapes
  }
}

/** Forgets every registered secret (tests only: a process registers for its whole life). */
export function forgetRegisteredSecrets(): void {
  registered.clear();
  registeredPattern = undefined;
}

export function redactText(text: string): string {
  let out = registeredPattern ? text.replace(registeredPattern, '***') : text;
  for (const [re, by] of TEXT_RULES) out = typeof by === 'string' ? out.replace(re, by) : out.replace(re, by);
  return out;
}

const MAX_DEPTH = 4;

/** A record's fields with every string passed through redactText; Errors become their message. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value instanceof Error) return redactText(value.message);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  // A URL, a Map, a class instance: its text form, redacted (its own fields may hide a secret).
  const proto = Object.getPrototypeOf(value) as unknown;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a class's own toString is what it shows; "[object X]" is harmless
  if (proto !== Object.prototype && proto !== null) return redactText(String(value));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactFields(v, depth + 1);
  return out;
}

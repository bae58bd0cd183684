/**
 * Bounds what one audit row stores, so nobody — an anonymous caller refused at once included —
 * can make the log grow by more than a few KB per call. Input over the cap is kept as the start
 * of its JSON text with a marker saying how big it was; short text columns are cut with "…".
 */
export const AUDIT_INPUT_MAX_BYTES = 8 * 1024;
export const AUDIT_TEXT_MAX_CHARS = 512;
export const AUDIT_ERROR_MAX_CHARS = 2048;

export interface TruncatedInput {
  /** The marker: this row's input was cut. */
  truncated: true;
  /** Size of the whole input as JSON (UTF-8 bytes). */
  bytes: number;
  /** The start of that JSON, whole characters, at most the cap once stored as a JSON string. */
  head: string;
}

/**
 * The longest start of `text` whose JSON string form (quotes and escapes included, as the row
 * stores it) fits in `maxBytes`; whole characters only.
 */
export function jsonStringHead(text: string, maxBytes: number): string {
  let used = 2; // the quotes
  let end = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(JSON.stringify(ch), 'utf8') - 2;
    if (used + size > maxBytes) break;
    used += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** `input` unchanged when its JSON fits in `maxBytes`, else the marker with the JSON's head. */
export function capAuditInput(input: unknown, maxBytes = AUDIT_INPUT_MAX_BYTES): unknown {
  if (input === undefined || input === null) return input;
  const json = JSON.stringify(input) ?? 'null';
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= maxBytes) return input;
  return { truncated: true, bytes, head: jsonStringHead(json, maxBytes) } satisfies TruncatedInput;
}

/** A text column cut to `max` characters (with "…" when cut); NUL (which Postgres text refuses) becomes U+FFFD. */
export function capText(text: string, max = AUDIT_TEXT_MAX_CHARS): string {
  const clean = text.replaceAll('\0', '\uFFFD');
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/**
 * The canary-secret scan (docs/security.md "Canary scan"): a test plants unique secret values
 * where the platform receives them, drives traffic, gathers every text the platform shows
 * (log files, Events, statuses, /metrics, audit rows, process command lines) and asks where any
 * canary turns up. Pure, so the local and the Kubernetes scans share one definition of "found".
 *
 * A canary counts as found as it is, URL-encoded (a password put into a URL) or base64-encoded
 * (a Kubernetes Secret's data, a Basic credential). Excerpts mask every canary, so a failing
 * test's report does not spread the values further.
 */

export interface Canary {
  /** What the value is, for the report: "store token", "Redis password". */
  name: string;
  value: string;
}

export interface CanarySource {
  /** Where the text came from: "logs/_platform/operator.log", "/proc/4242/cmdline", "Event default/x". */
  where: string;
  text: string;
}

export interface CanaryFinding {
  canary: string;
  form: CanaryForm;
  where: string;
  /** 1-based line of the first occurrence. */
  line: number;
  occurrences: number;
  /** The text around the first occurrence, every canary masked as `<canary:NAME>`. */
  excerpt: string;
}

export type CanaryForm = 'as is' | 'URL-encoded' | 'base64';

/** A shorter value could appear in unrelated text by chance: a hit would prove nothing. */
export const MIN_CANARY_LENGTH = 12;

const EXCERPT_CHARS = 60;

/** The spellings of `value` a scan looks for (each only once: a plain token URL-encodes to itself). */
export function canaryForms(value: string): Array<{ form: CanaryForm; text: string }> {
  const forms: Array<{ form: CanaryForm; text: string }> = [{ form: 'as is', text: value }];
  const encoded = encodeURIComponent(value);
  if (encoded !== value) forms.push({ form: 'URL-encoded', text: encoded });
  // Without padding: inside a longer base64 text the value's encoding ends without "=".
  forms.push({ form: 'base64', text: Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, '') });
  return forms;
}

function checkCanaries(canaries: readonly Canary[]): void {
  const names = new Set<string>();
  for (const c of canaries) {
    if (c.value.length < MIN_CANARY_LENGTH) throw new TypeError(`canary "${c.name}" has ${c.value.length} characters; use at least ${MIN_CANARY_LENGTH} so that a hit cannot be chance`);
    if (c.value.includes('\n')) throw new TypeError(`canary "${c.name}" spans lines; findings are reported by line`);
    if (names.has(c.name)) throw new TypeError(`two canaries are named "${c.name}"`);
    names.add(c.name);
  }
}

function masked(text: string, canaries: readonly Canary[]): string {
  let out = text;
  for (const c of [...canaries].sort((a, b) => b.value.length - a.value.length)) {
    for (const { text: t } of canaryForms(c.value)) out = out.split(t).join(`<canary:${c.name}>`);
  }
  return out;
}

/** Every canary (in any of its forms) in any source: one finding per canary, form and source. */
export function findCanaries(canaries: readonly Canary[], sources: Iterable<CanarySource>): CanaryFinding[] {
  checkCanaries(canaries);
  const findings: CanaryFinding[] = [];
  for (const source of sources) {
    // Excerpts come from the masked text: cutting the raw text could leave half a canary in view.
    let maskedLines: string[] | undefined;
    for (const canary of canaries) {
      for (const { form, text } of canaryForms(canary.value)) {
        const first = source.text.indexOf(text);
        if (first < 0) continue;
        let occurrences = 0;
        for (let at = first; at >= 0; at = source.text.indexOf(text, at + text.length)) occurrences++;
        const line = source.text.slice(0, first).split('\n').length;
        maskedLines ??= masked(source.text, canaries).split('\n');
        findings.push({ canary: canary.name, form, where: source.where, line, occurrences, excerpt: around(maskedLines[line - 1] ?? '', `<canary:${canary.name}>`) });
      }
    }
  }
  return findings;
}

/** The part of a (masked) line around `marker`, at most EXCERPT_CHARS either side. */
function around(line: string, marker: string): string {
  const at = Math.max(0, line.indexOf(marker));
  const from = Math.max(0, at - EXCERPT_CHARS);
  const to = Math.min(line.length, at + marker.length + EXCERPT_CHARS);
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`.trim();
}

/** One line per finding, for a test's failure message. */
export function describeFindings(findings: readonly CanaryFinding[]): string {
  return findings
    .map((f) => `${f.canary} (${f.form}) in ${f.where} line ${f.line}${f.occurrences > 1 ? ` (${f.occurrences} times)` : ''}: ${f.excerpt}`)
    .join('\n');
}

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) `traceparent` and `tracestate`,
 * parsed and formatted. Pure. A header that does not parse is an answer (undefined), never a
 * throw: the request it came with starts a new trace instead of failing.
 */

export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero: the caller's span. */
  spanId: string;
  /** The trace-flags byte (bit 0 = sampled). */
  flags: number;
}

const HEX_2 = /^[0-9a-f]{2}$/;
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** `00-<32>-<16>-<2>`: every version shares these first 55 characters. */
const VERSION_00_LENGTH = 55;

export function isValidTraceId(id: string): boolean {
  return TRACE_ID.test(id) && id !== ZERO_TRACE_ID;
}

export function isValidSpanId(id: string): boolean {
  return SPAN_ID.test(id) && id !== ZERO_SPAN_ID;
}

/**
 * Version 00 exactly as specified; a higher version is read by its version-00 prefix when what
 * follows starts with "-" (the spec's forward compatibility). Version ff, upper-case hex, all-zero
 * ids and wrong lengths are refused.
 */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value.length < VERSION_00_LENGTH) return undefined;
  const version = value.slice(0, 2);
  if (!HEX_2.test(version) || version === 'ff') return undefined;
  if (version === '00' ? value.length !== VERSION_00_LENGTH : value.length > VERSION_00_LENGTH && value[VERSION_00_LENGTH] !== '-') return undefined;
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  const traceId = value.slice(3, 35);
  const spanId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (!isValidTraceId(traceId) || !isValidSpanId(spanId) || !HEX_2.test(flags)) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}

/** Always version 00; only the sampled bit of `flags` is carried (the spec's other bits are unassigned). */
export function formatTraceparent(p: TraceParent): string {
  if (!isValidTraceId(p.traceId) || !isValidSpanId(p.spanId)) throw new Error('traceparent needs a 32-hex-digit trace id and a 16-hex-digit span id, neither all zero');
  return `00-${p.traceId}-${p.spanId}-${p.flags & 1 ? '01' : '00'}`;
}

export function isSampled(p: TraceParent): boolean {
  return (p.flags & 1) === 1;
}

/** A tracestate list member: `key=value`, in order, leftmost most recent. */
export type TraceState = ReadonlyArray<readonly [key: string, value: string]>;

/** simple-key or tenant@system key (spec §3.3.1.3.1). */
const TRACESTATE_KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
/** Printable ASCII except "," and "=", not ending in a space; at most 256 characters. */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
export const MAX_TRACESTATE_MEMBERS = 32;

/**
 * The members of a tracestate header (repeated headers joined with ","), or undefined when it is
 * malformed — a bad member, a repeated key, more than 32 members: the spec has the whole header
 * dropped then, never a guess at which part to keep. Empty members (",,") are allowed.
 */
export function parseTracestate(header: string | undefined): TraceState | undefined {
  if (header === undefined) return undefined;
  const members: Array<readonly [string, string]> = [];
  const seen = new Set<string>();
  for (const raw of header.split(',')) {
    const member = raw.trim();
    if (member === '') continue;
    const eq = member.indexOf('=');
    if (eq <= 0) return undefined;
    const key = member.slice(0, eq);
    const value = member.slice(eq + 1);
    if (!TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(value) || seen.has(key)) return undefined;
    seen.add(key);
    members.push([key, value]);
    if (members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  }
  return members;
}

export function formatTracestate(state: TraceState): string {
  return state.map(([k, v]) => `${k}=${v}`).join(',');
}

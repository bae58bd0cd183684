import { describe, expect, it } from 'vitest';
import { AUDIT_INPUT_MAX_BYTES, capAuditInput, capText, jsonStringHead, type TruncatedInput } from './audit-input-cap.ts';
import { redactInput } from './redact.ts';

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('capAuditInput', () => {
  it('keeps input that fits, unchanged', () => {
    const small = { name: 'web', traffic: [{ percent: 100 }] };
    expect(capAuditInput(small)).toBe(small);
    expect(capAuditInput(undefined)).toBeUndefined();
    expect(capAuditInput(null)).toBeNull();
    const exact = { p: 'x'.repeat(AUDIT_INPUT_MAX_BYTES - 8) }; // {"p":"…"} is 8 bytes of JSON around it
    expect(jsonBytes(exact)).toBe(AUDIT_INPUT_MAX_BYTES);
    expect(capAuditInput(exact)).toBe(exact);
  });

  it('a 1 MB input becomes the marker with an 8 KB head', () => {
    const big = { manifest: { pad: 'x'.repeat(1024 * 1024) } };
    const out = capAuditInput(big) as TruncatedInput;
    expect(out.truncated).toBe(true);
    expect(out.bytes).toBe(jsonBytes(big));
    expect(out.head.startsWith('{"manifest":{"pad":"xxx')).toBe(true);
    expect(jsonBytes(out.head)).toBeLessThanOrEqual(AUDIT_INPUT_MAX_BYTES);
    expect(jsonBytes(out)).toBeLessThanOrEqual(AUDIT_INPUT_MAX_BYTES + 64);
  });

  it('escaping-heavy input still fits (quotes and backslashes double when stored)', () => {
    const out = capAuditInput({ q: '"\\'.repeat(50_000) }, 1000) as TruncatedInput;
    expect(jsonBytes(out.head)).toBeLessThanOrEqual(1000);
    expect(jsonBytes(out.head)).toBeGreaterThan(990);
    expect(jsonStringHead('ab"c', 5)).toBe('ab'); // with the quote it would need 6: "ab\""
    expect(jsonStringHead('ab"c', 6)).toBe('ab"');
    expect(jsonStringHead('x', 2)).toBe('');
  });

  it('never splits a multi-byte character', () => {
    const out = capAuditInput({ s: '€'.repeat(10_000) }, 101) as TruncatedInput;
    expect(out.head).not.toContain('\uFFFD');
    expect(jsonBytes(out.head)).toBeLessThanOrEqual(101);
    expect(jsonStringHead('a€', 4)).toBe('a');
    expect(jsonStringHead('a€', 6)).toBe('a€');
    expect(jsonStringHead('😀😀', 7)).toBe('😀');
  });

  it('after redaction, NUL characters (refused by Postgres jsonb) are replaced, secrets hidden', () => {
    const r = redactInput({ 'k\0': 'a\0b', token: 's3cret' });
    expect(r).toEqual({ 'k\uFFFD': 'a\uFFFDb', token: '[redacted]' });
  });
});

describe('capText', () => {
  it('cuts long text with an ellipsis and replaces NUL', () => {
    expect(capText('short')).toBe('short');
    expect(capText('x'.repeat(600))).toHaveLength(512);
    expect(capText('x'.repeat(600)).endsWith('…')).toBe(true);
    expect(capText('abcdef', 4)).toBe('abc…');
    expect(capText('a\0b')).toBe('a\uFFFDb');
  });
});

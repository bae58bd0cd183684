import { describe, expect, it } from 'vitest';
import { parseAnswerOptions } from './answer-options.ts';

const parse = (qs: string) => parseAnswerOptions(new URLSearchParams(qs));

describe('parseAnswerOptions', () => {
  it('skips expired instances by default', () => {
    expect(parse('')).toEqual({ ok: true, value: { includeExpired: false } });
    expect(parse('includeExpired=')).toEqual({ ok: true, value: { includeExpired: false } });
    expect(parse('includeExpired=false')).toEqual({ ok: true, value: { includeExpired: false } });
  });

  it('includeExpired=true is the escape hatch', () => {
    expect(parse('includeExpired=true')).toEqual({ ok: true, value: { includeExpired: true } });
  });

  it('anything else is a 400 naming the parameter', () => {
    for (const bad of ['TRUE', '1', 'yes', 'x'.repeat(100)]) {
      const r = parse(`includeExpired=${bad}`);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toMatch(/^includeExpired must be true or false, got "/);
      expect(!r.ok && r.message.length).toBeLessThan(120);
    }
  });
});

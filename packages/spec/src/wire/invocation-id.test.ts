import { describe, expect, it } from 'vitest';
import { INVOCATION_ID_HEADER, INVOCATION_ID_HEADER_LOWER, isInvocationId } from './invocation-id.ts';

describe('Orrery-Invocation-Id', () => {
  it('has one name, also in the lower case node hands incoming header names over in', () => {
    expect(INVOCATION_ID_HEADER).toBe('Orrery-Invocation-Id');
    expect(INVOCATION_ID_HEADER_LOWER).toBe(INVOCATION_ID_HEADER.toLowerCase());
  });
  it('is 32 lower-case hex digits, nothing else', () => {
    expect(isInvocationId('0123456789abcdef0123456789abcdef')).toBe(true);
    for (const v of [undefined, '', '0123456789ABCDEF0123456789ABCDEF', '0123456789abcdef0123456789abcde', '0123456789abcdef0123456789abcdef0', '0123456789abcdef-123456789abcdef', ' 0123456789abcdef0123456789abcdef']) {
      expect(isInvocationId(v), String(v)).toBe(false);
    }
  });
});

import { isInvocationId } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { mintInvocationId } from './mint-invocation-id.ts';

describe('minting invocation ids', () => {
  it('gives 32 lower-case hex digits, the form the runtime accepts', () => {
    const id = mintInvocationId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(isInvocationId(id)).toBe(true);
  });

  it('never repeats, across many draws of the entropy buffer', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5000; i++) ids.add(mintInvocationId());
    expect(ids.size).toBe(5000);
  });

  it('uses every bit: each hex digit position takes many values', () => {
    const seen = Array.from({ length: 32 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...mintInvocationId()].forEach((c, p) => seen[p]!.add(c));
    for (const s of seen) expect(s.size).toBe(16);
  });
});

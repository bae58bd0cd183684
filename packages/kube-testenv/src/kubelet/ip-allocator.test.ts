import { describe, expect, it } from 'vitest';
import { IpAllocator } from './ip-allocator.ts';

describe('IpAllocator', () => {
  it('hands out addresses from .2 upwards', () => {
    const a = new IpAllocator('10.244.1.');
    expect([a.allocate(), a.allocate(), a.allocate()]).toEqual(['10.244.1.2', '10.244.1.3', '10.244.1.4']);
  });

  it('does not reuse a freed address at once (round-robin, like host-local IPAM)', () => {
    const a = new IpAllocator('10.244.1.');
    const first = a.allocate();
    a.allocate();
    a.release(first);
    expect(a.allocate()).toBe('10.244.1.4');
  });

  it('wraps around to freed addresses and fails when the range is full', () => {
    const a = new IpAllocator('10.0.0.', 2, 4);
    expect([a.allocate(), a.allocate(), a.allocate()]).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4']);
    expect(() => a.allocate()).toThrow(/no free pod address/);
    a.release('10.0.0.3');
    expect(a.allocate()).toBe('10.0.0.3');
    expect(a.inUse).toBe(3);
  });

  it('ignores addresses outside its range', () => {
    const a = new IpAllocator('10.244.1.');
    a.release('192.168.0.1');
    expect(a.inUse).toBe(0);
  });
});

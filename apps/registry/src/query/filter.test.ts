import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../model/instance.ts';
import { ORDER_CENTER_API } from '../testing/seed-instance.ts';
import { matchesFilter, parseFilter, parseWatchOptions } from './filter.ts';

const inst = (over: Partial<InstanceRecord> = {}): InstanceRecord => ({
  ...ORDER_CENTER_API,
  instanceId: 'i1',
  zone: 'az1',
  labels: { color: 'gray', version: 'v2' },
  metadata: {},
  endpoints: [{ name: 'http', protocol: 'http', host: 'h', port: 1, weight: 100 }],
  leaseTtlSeconds: 30,
  ...over,
});
const f = (qs: string) => {
  const r = parseFilter(new URLSearchParams(qs));
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

describe('query filters', () => {
  it('answers the seed example queries', () => {
    expect(matchesFilter(f('namespace=prod&service=company.trade.order.order-center.api&zone=az1&endpoint=http&selector=color=gray,version%20in%20(v2),!deprecated'), inst())).toBe(true);
    expect(matchesFilter(f('namespace=prod&servicePrefix=company.trade.order&endpoint=http'), inst())).toBe(true);
    expect(matchesFilter(f('namespace=prod&organization=company&businessDomain=trade&capabilityDomain=order'), inst())).toBe(true);
    expect(matchesFilter(f('namespace=prod&servicePrefix=company.trade.order&selector=env%20in%20(prod,staging)&selector=tier=core'), inst())).toBe(false);
    expect(matchesFilter(f('namespace=prod&organization=company&businessDomain=trade&capabilityDomain=order&label=color=gray&label=version=v2'), inst())).toBe(true);
  });

  it('filters on namespace, zone, endpoint name or protocol, and repeated services', () => {
    expect(matchesFilter(f('namespace=staging'), inst())).toBe(false);
    expect(matchesFilter(f('namespace=prod&zone=az2'), inst())).toBe(false);
    expect(matchesFilter(f('namespace=prod&endpoint=grpc'), inst())).toBe(false);
    expect(matchesFilter(f('namespace=prod&service=a.b.c.d.e&service=company.trade.order.order-center.api'), inst())).toBe(true);
  });

  it('rejects bad parameters', () => {
    expect(parseFilter(new URLSearchParams('')).ok).toBe(false);
    expect(parseFilter(new URLSearchParams('namespace=prod&service=a.b')).ok).toBe(false);
    expect(parseFilter(new URLSearchParams('namespace=prod&limit=0')).ok).toBe(false);
    expect(parseFilter(new URLSearchParams('namespace=prod&organization=a&application=b')).ok).toBe(false);
    expect(parseFilter(new URLSearchParams('namespace=prod&selector=version%20in%20v2')).ok).toBe(false);
  });

  it('parses watch options', () => {
    expect(parseWatchOptions(new URLSearchParams(''))).toEqual({ ok: true, value: { includeSnapshot: true } });
    expect(parseWatchOptions(new URLSearchParams('sinceRevision=1024&includeSnapshot=false'))).toEqual({ ok: true, value: { includeSnapshot: false, sinceRevision: 1024 } });
    expect(parseWatchOptions(new URLSearchParams('sinceRevision=x')).ok).toBe(false);
  });
});

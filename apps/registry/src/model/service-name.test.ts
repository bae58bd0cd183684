import { describe, expect, it } from 'vitest';
import { parseServiceName, segmentRun, serviceHasPrefix } from './service-name.ts';
import { orreryServiceName } from './orrery-naming.ts';

describe('service names', () => {
  it('parses five segments, including dashes and digits', () => {
    expect(parseServiceName('company.trade.order.order-center.api')).toEqual({
      ok: true,
      value: { organization: 'company', businessDomain: 'trade', capabilityDomain: 'order', application: 'order-center', role: 'api' },
    });
    const orrery = orreryServiceName('team-a', 'counter', 'counter-00001');
    expect(orrery).toBe('orrery.functions.team-a.counter.counter-00001');
    expect(parseServiceName(orrery).ok).toBe(true);
  });

  it('rejects wrong segment counts and bad segments', () => {
    expect(parseServiceName('company.trade.order').ok).toBe(false);
    expect(parseServiceName('company.trade.order.x.api.extra').ok).toBe(false);
    expect(parseServiceName('company.trade..x.api').ok).toBe(false);
    expect(parseServiceName('company.trade.-order.x.api').ok).toBe(false);
  });

  it('classifies segment runs: exact, prefix, none, gap', () => {
    expect(segmentRun({})).toEqual({ ok: true, value: { kind: 'none' } });
    expect(segmentRun({ organization: 'company', businessDomain: 'trade', capabilityDomain: 'order' })).toEqual({
      ok: true,
      value: { kind: 'prefix', prefix: 'company.trade.order' },
    });
    expect(
      segmentRun({ organization: 'c', businessDomain: 't', capabilityDomain: 'o', application: 'a', role: 'r' }),
    ).toEqual({ ok: true, value: { kind: 'exact', service: 'c.t.o.a.r' } });
    const gap = segmentRun({ organization: 'company', application: 'order-center' });
    expect(gap.ok).toBe(false);
    expect(!gap.ok && gap.message).toContain('missing businessDomain, capabilityDomain');
  });

  it('matches prefixes on segment boundaries', () => {
    expect(serviceHasPrefix('company.trade.order.x.api', 'company.trade')).toBe(true);
    expect(serviceHasPrefix('company.trader.order.x.api', 'company.trade')).toBe(false);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isReservedService } from './reserved-service.ts';
import { scopeCovers, scopeProblems, WriteTokenSet, type WriteToken } from './write-scope.ts';

const tok = (over: Partial<WriteToken> = {}): WriteToken => ({ name: 't', token: 'a-token-of-sixteen+', namespaces: ['prod'], servicePrefixes: ['company.trade'], ...over });

describe('reserved services', () => {
  it('orrery.functions and everything under it, on whole segments, in any case', () => {
    for (const s of ['orrery.functions', 'orrery.functions.a.b.c', 'Orrery.Functions.a.b.c', 'ORRERY.FUNCTIONS.x.y.z']) expect(isReservedService(s)).toBe(true);
    for (const s of ['orrery.functionsx.a.b.c', 'orrery.function.a.b.c', 'orrery', 'company.orrery.functions.a.b', 'xorrery.functions.a.b.c']) expect(isReservedService(s)).toBe(false);
  });
});

describe('write token scope', () => {
  it('covers a namespace in its list and a service under one of its prefixes (whole segments)', () => {
    const t = tok();
    expect(scopeCovers(t, 'prod', 'company.trade.order.oc.api')).toBe(true);
    expect(scopeCovers(t, 'prod', 'company.trader.order.oc.api')).toBe(false);
    expect(scopeCovers(t, 'staging', 'company.trade.order.oc.api')).toBe(false);
    expect(scopeCovers(t, 'prod', 'company.other.order.oc.api')).toBe(false);
  });

  it('"*" is any namespace or any service, except the reserved prefix', () => {
    const t = tok({ namespaces: ['*'], servicePrefixes: ['*'] });
    expect(scopeCovers(t, 'anything', 'a.b.c.d.e')).toBe(true);
    expect(scopeCovers(t, 'anything', 'orrery.functions.anything.f.f-00001')).toBe(false);
    expect(scopeCovers(tok({ servicePrefixes: ['orrery'] }), 'prod', 'orrery.functions.prod.f.r')).toBe(false);
    expect(scopeCovers(tok({ servicePrefixes: ['orrery'] }), 'prod', 'orrery.other.prod.f.r')).toBe(true);
  });

  it('never covers a reserved service, whatever the scope (property)', () => {
    const seg = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(seg, seg, seg, fc.array(fc.constantFrom('*', 'orrery', 'orrery.functions', 'company'), { minLength: 1 }), (ns, fn, rev, prefixes) => {
        expect(scopeCovers(tok({ namespaces: ['*', ns], servicePrefixes: prefixes }), ns, `orrery.functions.${ns}.${fn}.${rev}`)).toBe(false);
      }),
    );
  });

  it('says what is wrong with a scope, naming the token and never its value', () => {
    const problems = scopeProblems(tok({ name: 'bad', namespaces: ['Prod', '*'], servicePrefixes: ['a..b', 'orrery.functions.x', 'a.b.c.d.e.f', 'ok.prefix'] }));
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toContain('"Prod"');
    expect(problems.join('\n')).toContain('orrery.functions.x" is inside orrery.functions.');
    expect(problems.join('\n')).not.toContain('a-token-of-sixteen+');
    expect(scopeProblems(tok())).toEqual([]);
  });
});

describe('write token set', () => {
  it('finds the presented token among many, and nothing for another', () => {
    const set = new WriteTokenSet([tok({ name: 'a', token: 'token-a-0123456789' }), tok({ name: 'b', token: 'token-b-0123456789' })]);
    expect(set.find('token-b-0123456789')?.name).toBe('b');
    expect(set.find('token-a-0123456789')?.name).toBe('a');
    expect(set.find('token-c-0123456789')).toBeUndefined();
    expect(set.find('')).toBeUndefined();
    expect(new WriteTokenSet([]).find('x')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseIngressTarget } from './ingress-target.ts';

describe('parseIngressTarget', () => {
  it('routes /{namespace}/{function}/{rest} and forwards the rest with its query', () => {
    expect(parseIngressTarget('/team/hello/a/b?x=1', 'h', undefined)).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/a/b?x=1' });
    expect(parseIngressTarget('/team/hello', 'h', undefined)).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/' });
    expect(parseIngressTarget('/team/hello?x=1', 'h', undefined)).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/?x=1' });
    expect(parseIngressTarget('/team/hello/', 'h', undefined)).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/' });
  });

  it('rejects paths without a namespace and a function', () => {
    for (const u of ['/', '/team', '/team/', '//hello', 'x', '/team?x=/y/z']) expect(parseIngressTarget(u, undefined, undefined)).toBeUndefined();
  });

  it('routes by host <function>.<namespace>.<domain> when the domain matches', () => {
    expect(parseIngressTarget('/a?b', 'hello.team.fn.example.com:8080', '.fn.example.com')).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/a?b' });
    expect(parseIngressTarget('/team/hello/x', 'other.com', '.fn.example.com')).toEqual({ namespace: 'team', name: 'hello', upstreamPath: '/x' });
    expect(parseIngressTarget('/x', 'a.b.c.fn.example.com', '.fn.example.com')).toBeUndefined();
  });
});

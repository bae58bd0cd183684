import { describe, expect, it } from 'vitest';
import { EndpointGuard, normalizeHost, parseHostPort } from './endpoint-guard.ts';

const guard = (platform: string[], selfPorts: number[] = [8080, 9090]) => new EndpointGuard({ platform, selfPorts, localAddresses: () => ['127.0.0.1', '::1', '10.0.0.5'] });

describe('parsing platform endpoints', () => {
  it('takes host:port, [v6]:port, bare hosts and URLs (default ports by scheme)', () => {
    expect(parseHostPort('10.0.0.1:8080')).toEqual({ host: '10.0.0.1', port: 8080 });
    expect(parseHostPort('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseHostPort('::1')).toEqual({ host: '::1' });
    expect(parseHostPort('Statesvc.Orrery-System.svc.')).toEqual({ host: 'statesvc.orrery-system.svc' });
    expect(parseHostPort('http://orrery-operator.orrery-system.svc:8080/v1')).toEqual({ host: 'orrery-operator.orrery-system.svc', port: 8080 });
    expect(parseHostPort('http://statesvc')).toEqual({ host: 'statesvc', port: 80 });
    expect(parseHostPort('rediss://:pw@redis.example:6380/0')).toEqual({ host: 'redis.example', port: 6380 });
    expect(parseHostPort('redis://redis')).toEqual({ host: 'redis', port: 6379 });
    for (const bad of ['', 'a:b:c', 'host:0', 'host:70000', 'http://']) expect(parseHostPort(bad)).toBeUndefined();
  });

  it('normalizes case, brackets, trailing dots and IPv4-mapped IPv6', () => {
    expect(normalizeHost('[::FFFF:10.0.0.1]')).toBe('10.0.0.1');
    expect(normalizeHost('Example.COM.')).toBe('example.com');
  });

  it('refuses a bad entry when the guard is built', () => {
    expect(() => guard(['a:b:c'])).toThrow(/platform endpoint "a:b:c"/);
  });
});

describe('endpoint guard', () => {
  it('drops platform addresses, port-exact or whole host', () => {
    const g = guard(['10.0.0.20:8080', '10.0.0.21']);
    expect(g.check('10.0.0.20:8080')).toMatchObject({ ok: false, reason: expect.stringContaining('platform component') });
    expect(g.check('10.0.0.20:8081').ok).toBe(true);
    expect(g.check('10.0.0.21:1').ok).toBe(false);
    expect(g.check('10.0.0.22:8080').ok).toBe(true);
  });

  it('treats every address of this machine as one host (loopback, unspecified, local interfaces)', () => {
    const g = guard(['127.0.0.1:8083']);
    for (const a of ['127.0.0.1:8083', '127.0.0.2:8083', 'localhost:8083', '[::1]:8083', '0.0.0.0:8083', '[::]:8083', '10.0.0.5:8083', '[::ffff:127.0.0.1]:8083']) {
      expect(g.check(a).ok, a).toBe(false);
    }
    expect(g.check('127.0.0.1:8084').ok).toBe(true);
    expect(g.check('10.0.0.6:8083').ok).toBe(true);
  });

  it("drops the router's own listeners, including ports bound later", () => {
    const g = guard([], [8080]);
    expect(g.check('127.0.0.1:8080')).toMatchObject({ ok: false, reason: expect.stringContaining("router's own listener") });
    expect(g.check('10.0.0.5:8080').ok).toBe(false);
    // another machine's 8080 (a worker pod's port) is fine
    expect(g.check('10.0.0.9:8080').ok).toBe(true);
    expect(g.check('127.0.0.1:41000').ok).toBe(true);
    g.addSelfPorts([41000]);
    expect(g.check('127.0.0.1:41000').ok).toBe(false);
  });

  it('drops names (only IP addresses and localhost are used)', () => {
    const g = guard([]);
    expect(g.check('statesvc.orrery-system.svc:8080')).toMatchObject({ ok: false, reason: expect.stringContaining('names a host') });
    expect(g.check('localhost:1234').ok).toBe(true);
    expect(g.check('nonsense').ok).toBe(false);
  });

  it('covers the addresses a platform name resolves to, and keeps them when a lookup fails', async () => {
    const g = guard(['http://statesvc.orrery-system.svc:8080', 'etcd.local']);
    expect(g.names()).toEqual(['statesvc.orrery-system.svc', 'etcd.local']);
    expect(g.check('10.96.0.7:8080').ok).toBe(true);
    let fail = false;
    const lookup = async (name: string) => {
      if (fail) throw new Error('dns down');
      return name === 'statesvc.orrery-system.svc' ? ['10.96.0.7'] : ['127.0.0.1'];
    };
    await g.resolveNames(lookup);
    expect(g.check('10.96.0.7:8080').ok).toBe(false);
    expect(g.check('10.96.0.7:8081').ok).toBe(true);
    // a name resolving to this machine covers all of this machine's addresses
    expect(g.check('127.0.0.9:2379').ok).toBe(false);
    fail = true;
    await g.resolveNames(lookup);
    expect(g.check('10.96.0.7:8080').ok).toBe(false);
  });
});

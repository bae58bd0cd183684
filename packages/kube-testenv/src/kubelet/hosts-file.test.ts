import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podHostname, type PodRecord, renderHostsFile, renderResolvConf } from './hosts-file.ts';

const pod = (o: { name?: string; ns?: string; hostname?: string; subdomain?: string } = {}): V1Pod => ({
  metadata: { name: o.name ?? 'web-0', namespace: o.ns ?? 'app' },
  spec: { containers: [], hostname: o.hostname, subdomain: o.subdomain },
});
const svc = (ns: string, name: string, clusterIP: string, extra: Partial<V1Service['spec']> = {}): V1Service => ({ metadata: { namespace: ns, name }, spec: { clusterIP, ...extra } });
const rec = (o: Partial<PodRecord> & { name: string; ip: string }): PodRecord => ({ namespace: 'app', labels: { app: 'etcd' }, ready: true, terminating: false, ...o });

const clusterLines = (text: string) => text.split('# Cluster names')[1]!.split('\n').slice(1).filter(Boolean);

describe('renderHostsFile', () => {
  it('names localhost and the pod itself', () => {
    const text = renderHostsFile({ pod: pod(), podIP: '10.244.1.5', services: [], pods: [] });
    expect(text).toContain('127.0.0.1\tlocalhost\n');
    expect(text).toContain('\n10.244.1.5\tweb-0\n');
  });

  it('gives a pod with hostname and subdomain its FQDN line', () => {
    const text = renderHostsFile({ pod: pod({ hostname: 'h', subdomain: 'sub' }), podIP: '10.244.1.5', services: [], pods: [] });
    expect(text).toContain('\n10.244.1.5\th.sub.app.svc.cluster.local\th\n');
  });

  it('names every Service with a ClusterIP, and bare names only in the pod namespace', () => {
    const text = renderHostsFile({ pod: pod(), podIP: '10.244.1.5', services: [svc('other', 'db', '10.96.0.9'), svc('app', 'api', '10.96.0.7'), svc('app', 'ext', '', { type: 'ExternalName', externalName: 'x' })], pods: [] });
    expect(clusterLines(text)).toEqual(['10.96.0.7\tapi.app.svc.cluster.local\tapi.app.svc\tapi.app\tapi', '10.96.0.9\tdb.other.svc.cluster.local\tdb.other.svc\tdb.other']);
  });

  it('answers a headless Service with its ready pods and the <hostname>.<subdomain> names of StatefulSet pods', () => {
    const headless = svc('app', 'etcd', 'None', { selector: { app: 'etcd' } });
    const pods = [
      rec({ name: 'etcd-1', ip: '10.244.1.2', hostname: 'etcd-1', subdomain: 'etcd' }),
      rec({ name: 'etcd-2', ip: '10.244.1.3', hostname: 'etcd-2', subdomain: 'etcd', ready: false }),
      rec({ name: 'other', ip: '10.244.1.4', labels: { app: 'web' } }),
      rec({ name: 'etcd-3', ip: '10.244.1.6', hostname: 'etcd-3', subdomain: 'etcd', terminating: true }),
    ];
    const lines = clusterLines(renderHostsFile({ pod: pod({ ns: 'elsewhere' }), podIP: '10.244.1.9', services: [headless], pods }));
    expect(lines).toEqual(['10.244.1.2\tetcd.app.svc.cluster.local\tetcd.app.svc\tetcd.app', '10.244.1.2\tetcd-1.etcd.app.svc.cluster.local\tetcd-1.etcd.app.svc\tetcd-1.etcd.app']);
  });

  it('includes not-ready pods when the headless Service publishes them', () => {
    const headless = svc('app', 'etcd', 'None', { selector: { app: 'etcd' }, publishNotReadyAddresses: true });
    const pods = [rec({ name: 'etcd-2', ip: '10.244.1.3', hostname: 'etcd-2', subdomain: 'etcd', ready: false })];
    const lines = clusterLines(renderHostsFile({ pod: pod(), podIP: '10.244.1.9', services: [headless], pods }));
    expect(lines).toContain('10.244.1.3\tetcd-2.etcd.app.svc.cluster.local\tetcd-2.etcd.app.svc\tetcd-2.etcd.app\tetcd-2.etcd');
  });

  it('keeps HostAliases', () => {
    const p = pod();
    p.spec!.hostAliases = [{ ip: '1.2.3.4', hostnames: ['a.example', 'b.example'] }];
    expect(renderHostsFile({ pod: p, podIP: '10.244.1.5', services: [], pods: [] })).toContain('# Entries added by HostAliases.\n1.2.3.4\ta.example\tb.example\n');
  });
});

describe('renderResolvConf', () => {
  it('gives ClusterFirst pods the cluster search path, ndots:5 and no nameserver', () => {
    const text = renderResolvConf(pod(), 'nameserver 8.8.8.8\n');
    expect(text).toContain('search app.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n');
    expect(text).not.toContain('nameserver');
  });

  it("gives Default pods the host's file and merges dnsConfig", () => {
    const p = pod();
    p.spec!.dnsPolicy = 'Default';
    expect(renderResolvConf(p, 'nameserver 8.8.8.8\n')).toBe('nameserver 8.8.8.8\n');
    p.spec!.dnsPolicy = 'ClusterFirst';
    p.spec!.dnsConfig = { nameservers: ['1.1.1.1'], searches: ['corp.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
    expect(renderResolvConf(p, '')).toContain('nameserver 1.1.1.1\nsearch app.svc.cluster.local svc.cluster.local cluster.local corp.example\noptions ndots:2 edns0\n');
  });
});

describe('podHostname', () => {
  it('is spec.hostname, else the name cut to 63 characters', () => {
    expect(podHostname(pod({ hostname: 'h' }))).toBe('h');
    expect(podHostname(pod({ name: `${'a'.repeat(62)}-bcd` }))).toBe('a'.repeat(62));
  });
});

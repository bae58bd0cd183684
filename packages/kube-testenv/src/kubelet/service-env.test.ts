import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { serviceEnvName, serviceEnvVars, servicesForPodEnv } from './service-env.ts';

const svc = (ns: string, name: string, clusterIP: string, ports: Array<{ name?: string; port: number; protocol?: string }> = [{ port: 80 }]): V1Service => ({
  metadata: { namespace: ns, name },
  spec: { clusterIP, ports },
});

describe('serviceEnvVars', () => {
  it('writes the kubelet variables for each Service (pkg/kubelet/envvars)', () => {
    const env = serviceEnvVars([svc('ns', 'foo-bar', '1.2.3.4', [{ port: 8080, protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'UDP' }])]);
    expect(env).toEqual([
      ['FOO_BAR_SERVICE_HOST', '1.2.3.4'],
      ['FOO_BAR_SERVICE_PORT', '8080'],
      ['FOO_BAR_SERVICE_PORT_METRICS', '9090'],
      ['FOO_BAR_PORT', 'tcp://1.2.3.4:8080'],
      ['FOO_BAR_PORT_8080_TCP', 'tcp://1.2.3.4:8080'],
      ['FOO_BAR_PORT_8080_TCP_PROTO', 'tcp'],
      ['FOO_BAR_PORT_8080_TCP_PORT', '8080'],
      ['FOO_BAR_PORT_8080_TCP_ADDR', '1.2.3.4'],
      ['FOO_BAR_PORT_9090_UDP', 'udp://1.2.3.4:9090'],
      ['FOO_BAR_PORT_9090_UDP_PROTO', 'udp'],
      ['FOO_BAR_PORT_9090_UDP_PORT', '9090'],
      ['FOO_BAR_PORT_9090_UDP_ADDR', '1.2.3.4'],
    ]);
  });

  it('skips headless and ExternalName Services', () => {
    expect(serviceEnvVars([svc('ns', 'headless', 'None'), { metadata: { namespace: 'ns', name: 'ext' }, spec: { type: 'ExternalName', externalName: 'x.example' } }])).toEqual([]);
  });

  it('defaults the protocol to TCP and brackets IPv6 addresses', () => {
    expect(serviceEnvVars([svc('ns', 'v6', 'fd00::1', [{ port: 53 }])])).toContainEqual(['V6_PORT', 'tcp://[fd00::1]:53']);
  });

  it('names variables in upper case with underscores', () => {
    expect(serviceEnvName('my-svc-2')).toBe('MY_SVC_2');
  });
});

describe('servicesForPodEnv', () => {
  const all = [svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]), svc('app', 'db', '10.96.0.5'), svc('other', 'x', '10.96.0.6'), svc('app', 'headless', 'None')];

  it("gives a pod the master Service and its own namespace's Services, sorted by name", () => {
    expect(servicesForPodEnv(all, 'app', true).map((s) => s.metadata!.name)).toEqual(['db', 'kubernetes']);
  });

  it('keeps the master Service when enableServiceLinks is false', () => {
    expect(servicesForPodEnv(all, 'app', false).map((s) => s.metadata!.name)).toEqual(['kubernetes']);
  });

  it('lets a same-named Service of the pod namespace win over the master one', () => {
    const own = svc('app', 'kubernetes', '10.96.0.9');
    expect(servicesForPodEnv([...all, own], 'app', true).find((s) => s.metadata!.name === 'kubernetes')!.spec!.clusterIP).toBe('10.96.0.9');
  });

  it('gives a pod of the default namespace its Services once', () => {
    expect(servicesForPodEnv([...all, svc('default', 'web', '10.96.0.7')], 'default', true).map((s) => s.metadata!.name)).toEqual(['kubernetes', 'web']);
  });
});

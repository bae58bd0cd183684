import { describe, expect, it } from 'vitest';
import { type PodAdminView, podAdminUrl } from './pod-admin-url.ts';

const pod = (status: PodAdminView['status'], ports: Array<{ name?: string; containerPort: number }> = [], deleting = false): PodAdminView => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'router-x', namespace: 'orrery-system', ...(deleting ? { deletionTimestamp: new Date() } : {}) },
  spec: { containers: [{ name: 'router', ports: [{ name: 'http', containerPort: 8080 }, ...ports] }] },
  status,
});

describe('podAdminUrl: where a router pod’s admin listener is', () => {
  it('uses the container port named admin, else the fallback port', () => {
    expect(podAdminUrl(pod({ phase: 'Running', podIP: '10.0.0.1' }, [{ name: 'admin', containerPort: 9191 }]), 9090)).toBe('http://10.0.0.1:9191');
    expect(podAdminUrl(pod({ phase: 'Running', podIP: '10.0.0.1' }), 9090)).toBe('http://10.0.0.1:9090');
  });

  it('brackets an IPv6 pod IP', () => {
    expect(podAdminUrl(pod({ phase: 'Running', podIP: 'fd00::2' }), 9090)).toBe('http://[fd00::2]:9090');
  });

  it('has no URL while the pod is not Running, has no IP yet, or is being deleted', () => {
    expect(podAdminUrl(pod({ phase: 'Pending' }), 9090)).toBeUndefined();
    expect(podAdminUrl(pod({ phase: 'Running' }), 9090)).toBeUndefined();
    expect(podAdminUrl(pod({ phase: 'Succeeded', podIP: '10.0.0.1' }), 9090)).toBeUndefined();
    expect(podAdminUrl(pod({ phase: 'Running', podIP: '10.0.0.1' }, [], true), 9090)).toBeUndefined();
  });
});

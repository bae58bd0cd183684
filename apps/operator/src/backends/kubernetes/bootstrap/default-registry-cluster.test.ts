import { describe, expect, it } from 'vitest';
import { parseDefaultRegistryClusterSpec, renderDefaultRegistryCluster } from './default-registry-cluster.ts';

describe('default RegistryCluster', () => {
  it('takes the chart’s spec as JSON and renders it in the release namespace', () => {
    const spec = parseDefaultRegistryClusterSpec('{"replicas":3,"storage":{"size":"2Gi"}}');
    expect(renderDefaultRegistryCluster({ name: 'orrery', spec }, 'orrery-system')).toEqual({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'RegistryCluster',
      metadata: { name: 'orrery', namespace: 'orrery-system', labels: { 'app.kubernetes.io/managed-by': 'orrery-operator', 'orrery.dev/default-registry-cluster': 'true' } },
      spec: { replicas: 3, storage: { size: '2Gi' } },
    });
    expect(parseDefaultRegistryClusterSpec(undefined)).toEqual({});
  });

  it('refuses what the API server would refuse, naming the field', () => {
    expect(() => parseDefaultRegistryClusterSpec('{"replicas":2}')).toThrow(/replicas/);
    expect(() => parseDefaultRegistryClusterSpec('[1]')).toThrow(/not a valid RegistryCluster spec/);
    expect(() => parseDefaultRegistryClusterSpec('{nope')).toThrow(/JSON object/);
  });
});

import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { fieldRefValue, formatMap, resourceFieldRefValue } from './downward-api.ts';

const pod: V1Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', labels: { b: '2', a: 'one "quoted"' }, annotations: { x: 'y' } }, spec: { containers: [], nodeName: 'n' } };
const where = { podIP: '10.244.1.3', hostIP: '10.245.0.1' };

describe('fieldRefValue', () => {
  it('gives whole label and annotation maps only to volumes, as sorted key="value" lines', () => {
    expect(fieldRefValue({ fieldPath: 'metadata.labels' }, pod, where, true)).toBe('a="one \\"quoted\\""\nb="2"');
    expect(fieldRefValue({ fieldPath: 'metadata.annotations' }, pod, where, true)).toBe('x="y"');
    expect(() => fieldRefValue({ fieldPath: 'metadata.labels' }, pod, where)).toThrow(/unsupported fieldPath/);
  });

  it('gives an empty value for a label the pod does not have', () => {
    expect(fieldRefValue({ fieldPath: "metadata.labels['missing']" }, pod, where)).toBe('');
  });

  it('refuses paths the downward API does not have', () => {
    expect(() => fieldRefValue({ fieldPath: 'spec.containers' }, pod, where)).toThrow(/unsupported/);
  });
});

describe('formatMap', () => {
  it('is empty for no map', () => {
    expect(formatMap(undefined)).toBe('');
  });
});

describe('resourceFieldRefValue', () => {
  it('falls back to node allocatable for a limit the container does not set', () => {
    expect(resourceFieldRefValue({ resource: 'limits.memory', divisor: '1Gi' }, { name: 'c' }, { cpu: '2', memory: '24Gi' })).toBe('24');
    expect(resourceFieldRefValue({ resource: 'requests.cpu', divisor: '1m' }, { name: 'c', resources: { limits: { cpu: '500m' } } }, { cpu: '2', memory: '24Gi' })).toBe('500');
  });

  it('refuses other resources', () => {
    expect(() => resourceFieldRefValue({ resource: 'cpu' }, { name: 'c' }, { cpu: '2', memory: '1Gi' })).toThrow(/unsupported resource/);
  });
});

import { describe, expect, it } from 'vitest';
import { kubeEventObject } from './kube-event-sink.ts';

describe('kubeEventObject', () => {
  it('is a core v1 Event about the object, reported by orrery.dev/operator, carrying the series count', () => {
    const e = kubeEventObject(
      { apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', namespace: 'ns', name: 'f-00001', uid: 'u1' },
      { reason: 'RevisionFailed', message: 'WorkerCrashing: x', type: 'Warning' },
      { name: 'f-00001.0123456789abcdef', count: 3, firstTimestamp: '2026-12-01T00:00:00.000Z', lastTimestamp: '2026-12-01T00:05:00.000Z', written: true },
      'operator-0',
    );
    expect(e).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'f-00001.0123456789abcdef', namespace: 'ns' },
      involvedObject: { apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', name: 'f-00001', namespace: 'ns', uid: 'u1' },
      type: 'Warning',
      reason: 'RevisionFailed',
      message: 'WorkerCrashing: x',
      source: { component: 'orrery-operator' },
      reportingComponent: 'orrery.dev/operator',
      reportingInstance: 'operator-0',
      firstTimestamp: '2026-12-01T00:00:00.000Z',
      lastTimestamp: '2026-12-01T00:05:00.000Z',
      count: 3,
    });
  });
});

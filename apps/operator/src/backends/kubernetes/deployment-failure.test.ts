import { describe, expect, it } from 'vitest';
import { deploymentFailure } from './deployment-failure.ts';
import type { KubeObject } from './kube-client.ts';

const dep = (status: object, generation = 2): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'hello-00002-deployment', namespace: 'fns', generation, labels: { 'orrery.dev/revision': 'hello-00002' } },
  status,
});
const timedOut = { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "hello-00002-7d" has timed out progressing.' };

describe('deploymentFailure', () => {
  it('fails a revision whose Deployment exceeded its progress deadline, naming where the logs are', () => {
    const f = deploymentFailure(dep({ observedGeneration: 2, conditions: [{ type: 'Available', status: 'False' }, timedOut] }));
    expect(f?.reason).toBe('ProgressDeadlineExceeded');
    expect(f?.message).toContain('has timed out progressing');
    expect(f?.message).toContain('kubectl logs -n fns -l orrery.dev/revision=hello-00002');
  });
  it('is no failure while progressing, complete, or before the controller saw the latest spec', () => {
    expect(deploymentFailure(undefined)).toBeUndefined();
    expect(deploymentFailure(dep({}))).toBeUndefined();
    expect(deploymentFailure(dep({ observedGeneration: 2, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] }))).toBeUndefined();
    expect(deploymentFailure(dep({ observedGeneration: 2, conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }] }))).toBeUndefined();
    expect(deploymentFailure(dep({ observedGeneration: 1, conditions: [timedOut] }))).toBeUndefined();
    expect(deploymentFailure(dep({ observedGeneration: 2, conditions: [{ ...timedOut, reason: 'Other' }] }))).toBeUndefined();
  });
});

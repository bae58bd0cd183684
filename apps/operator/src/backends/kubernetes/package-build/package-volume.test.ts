import { describe, expect, it } from 'vitest';
import { DEFAULT_PACKAGE_VOLUME, renderPackageVolumeClaim } from './package-volume.ts';

describe('renderPackageVolumeClaim', () => {
  it('asks for the configured size in the namespace, managed by the operator, with no owner', () => {
    const pvc = renderPackageVolumeClaim('team-a', DEFAULT_PACKAGE_VOLUME);
    expect(pvc.metadata).toEqual({
      name: 'orrery-packages',
      namespace: 'team-a',
      labels: { 'app.kubernetes.io/managed-by': 'orrery-operator', 'orrery.dev/component': 'package-volume' },
    });
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } });
  });

  it('names the storage class and access mode when given (ReadWriteMany for several nodes)', () => {
    const pvc = renderPackageVolumeClaim('team-a', { size: '50Gi', storageClass: 'nfs', accessMode: 'ReadWriteMany' });
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteMany'], resources: { requests: { storage: '50Gi' } }, storageClassName: 'nfs' });
  });
});

import { describe, expect, it } from 'vitest';
import { packageWorkerMount } from './package-mount.ts';

describe('packageWorkerMount', () => {
  it('mounts only the build\'s folder of the package volume, read-only, and points the runtime at it', () => {
    const m = packageWorkerMount('f'.repeat(64), undefined);
    expect(m.volume).toEqual({ name: 'package', persistentVolumeClaim: { claimName: 'orrery-packages', readOnly: true } });
    expect(m.mount).toEqual({ name: 'package', mountPath: '/var/orrery/package', subPath: `built/${'f'.repeat(64)}`, readOnly: true });
    expect(m.args).toEqual(['--source-dir', '/var/orrery/package']);
  });

  it('passes the module to load when the package names one', () => {
    expect(packageWorkerMount('f'.repeat(64), 'src/main.js').args).toEqual(['--source-dir', '/var/orrery/package', '--source-main', 'src/main.js']);
  });
});

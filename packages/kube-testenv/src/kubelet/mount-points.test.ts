import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MountSpec } from './container-launch.ts';
import { HostMountPoints, hostMountPoints } from './mount-points.ts';

const m = (target: string, file = false): MountSpec => ({ source: '/src', target, readOnly: false, file });

describe('hostMountPoints', () => {
  const present = (p: string) => ['/etc', '/etc/hosts', '/tmp', '/var'].includes(p);

  it('lists the missing parts of each target, the last one as a file for file mounts', () => {
    expect(hostMountPoints([m('/etc/orrery/key'), m('/etc/hosts', true), m('/etc/orrery/conf.yaml', true)], present)).toEqual([
      { path: '/etc/orrery', file: false },
      { path: '/etc/orrery/key', file: false },
      { path: '/etc/orrery/conf.yaml', file: true },
    ]);
  });

  it('leaves out targets inside another mount of the container (made in that volume)', () => {
    expect(hostMountPoints([m('/tmp/cache/x'), m('/tmp'), m('/data')], present)).toEqual([{ path: '/data', file: false }]);
  });
});

describe('HostMountPoints', () => {
  it('removes a mount point when the last container using it stops, only if empty', () => {
    const root = mkdtempSync(join(tmpdir(), 'mount-points-'));
    try {
      const registry = new HostMountPoints();
      const target = join(root, 'a', 'b');
      const releaseFirst = registry.acquire([m(target)]);
      mkdirSync(target, { recursive: true });
      const releaseSecond = registry.acquire([m(target)]);
      releaseFirst();
      releaseFirst();
      expect(existsSync(target)).toBe(true);
      releaseSecond();
      expect(existsSync(join(root, 'a'))).toBe(false);
      expect(existsSync(root)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

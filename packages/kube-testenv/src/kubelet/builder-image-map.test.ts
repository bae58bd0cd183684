import { describe, expect, it } from 'vitest';
import { type HostTools, mapImage, mappedImagesSummary } from './image-map.ts';

const tools = (files: string[]): HostTools => ({
  repoRoot: '/repo',
  node: '/usr/bin/node',
  imageBin: '/repo/packages/kube-testenv/src/kubelet/image-bin',
  readFile: (p) => {
    throw new Error(`ENOENT ${p}`);
  },
  orreryApps: () => ['runtime'],
  fileExists: (p) => files.includes(p),
});

describe('the builder image', () => {
  it('runs orrery-build of this checkout with node, from the repository root', () => {
    const m = mapImage('registry.example.com/orrery/builder:0.1.0', tools(['/repo/packages/builder/bin/orrery-build.mjs']));
    expect(m).toMatchObject({
      entrypoint: ['node', 'packages/builder/bin/orrery-build.mjs'],
      workingDir: '/repo',
      executables: { node: '/usr/bin/node' },
      pathAliases: [{ imagePath: '/app', hostPath: '/repo' }],
    });
  });

  it('says so when the builder is missing from the checkout, and lists itself among the mapped images', () => {
    expect(mapImage('orrery/builder', tools([]))).toEqual({ notMapped: expect.stringContaining('packages/builder/bin/orrery-build.mjs') });
    expect(mappedImagesSummary(tools([]))).toContain('orrery/builder');
  });
});

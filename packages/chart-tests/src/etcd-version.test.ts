/**
 * The etcd a RegistryCluster runs by default is the one the tests build and run
 * (scripts/k8s-versions.env): what the chart ships is what was tested.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RegistryClusterSpecSchema } from '@orrery/spec';
import { repoRoot } from './chart-files.ts';

describe('etcd version', () => {
  it('the RegistryCluster default equals the pinned ETCD_VERSION of scripts/k8s-versions.env, and so does the example', () => {
    const pins = readFileSync(join(repoRoot, 'scripts', 'k8s-versions.env'), 'utf8');
    const pinned = /^ETCD_VERSION=v?(\S+)$/m.exec(pins)?.[1];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(RegistryClusterSpecSchema.parse({}).version).toBe(pinned);
    expect(readFileSync(join(repoRoot, 'examples', 'registry-cluster.yaml'), 'utf8')).toContain(`version: ${pinned}`);
  });
});

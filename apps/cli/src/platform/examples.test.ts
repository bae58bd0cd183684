import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectExampleManifests } from './examples.ts';
import { REPO_ROOT } from './supervisor.ts';

describe('collectExampleManifests', () => {
  it('skips examples/invalid and orders Environments, then Revisions oldest first, then Functions', () => {
    const manifests = collectExampleManifests(join(REPO_ROOT, 'examples'));
    expect(manifests.some((m) => m.file.startsWith('invalid'))).toBe(false);
    const kinds = manifests.map((m) => m.object.kind);
    expect(kinds[0]).toBe('Environment');
    expect(kinds.lastIndexOf('Revision')).toBeLessThan(kinds.indexOf('Function'));
    expect(manifests.filter((m) => m.object.kind === 'Revision').map((m) => m.object.metadata?.name)).toEqual(['canary-00001', 'canary-00002']);
    expect(manifests.filter((m) => m.object.kind === 'Function').map((m) => m.object.metadata?.name)).toEqual(['canary', 'cart', 'counter']);
  });
});

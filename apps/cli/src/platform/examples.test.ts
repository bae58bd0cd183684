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
    expect(manifests.filter((m) => m.object.kind === 'Function').map((m) => m.object.metadata?.name)).toEqual(['canary', 'cart', 'counter', 'grpc-echo', 'heartbeat', 'hello-site', 'orders', 'ws-echo']);
  });

  it('leaves the opt-in examples/python out unless asked (orrery up --python-examples), then replays its Revisions too', () => {
    const names = (include: string[], kind: string) => collectExampleManifests(join(REPO_ROOT, 'examples'), include).filter((m) => m.object.kind === kind).map((m) => m.object.metadata?.name);
    expect(collectExampleManifests(join(REPO_ROOT, 'examples')).some((m) => m.file.startsWith('python'))).toBe(false);
    expect(names(['python'], 'Environment')).toEqual(expect.arrayContaining(['nodejs', 'python']));
    expect(names(['python'], 'Function')).toEqual(expect.arrayContaining(['canary', 'counter', 'canary-py', 'counter-py']));
    expect(names(['python'], 'Revision')).toEqual(['canary-00001', 'canary-00002', 'canary-py-00001', 'canary-py-00002']);
    const kinds = collectExampleManifests(join(REPO_ROOT, 'examples'), ['python']).map((m) => m.object.kind);
    expect(kinds.lastIndexOf('Environment')).toBeLessThan(kinds.indexOf('Revision'));
  });
});

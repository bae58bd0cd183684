import { describe, expect, it } from 'vitest';
import { type BuildStatus, FunctionSchema } from '@orrery/spec';
import { buildLines } from './build-description.ts';

const sha = 'ab'.repeat(32);
const fn = (build?: Partial<BuildStatus>, source: Record<string, unknown> = { package: { sha256: sha, main: 'src/h.mjs' } }) =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f', namespace: 'default' },
    spec: { template: { source } },
    ...(build ? { status: { build: { sha256: sha, key: 'k'.repeat(64), builder: 'node npm v20.20.2', phase: 'Pending', reason: 'Queued', ...build } } } : {}),
  });

describe('buildLines', () => {
  it('has nothing to say for a Function without a package', () => {
    expect(buildLines(fn(undefined, { inline: 'x' }))).toEqual([]);
  });

  it('says when the operator has not looked at the package yet', () => {
    expect(buildLines(fn())).toEqual(['', 'Build:', '  package abababababab: <not looked at yet by the operator>']);
  });

  it('shows a finished build: phase, duration, builder, dependencies and size', () => {
    const lines = buildLines(fn({ phase: 'Succeeded', reason: 'Built', message: 'built', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:02.5Z', dependencies: 4, sizeBytes: 2_500_000 }));
    expect(lines).toEqual([
      '',
      'Build:',
      `  Package:      ${sha} (main src/h.mjs)`,
      '  Phase:        Succeeded (Built), took 2.5s',
      '  Builder:      node npm v20.20.2',
      '  Message:      built',
      '  Installed:    4 dependencies, 2.4 MiB on disk',
    ]);
  });

  it('shows a failed build\'s log tail, indented', () => {
    const lines = buildLines(fn({ phase: 'Failed', reason: 'DependenciesFailed', message: 'npm exited with code 1', log: 'npm ERR! code E404\nnpm ERR! 404 nope\n' }));
    expect(lines.slice(-3)).toEqual(['  Log (tail):', '    npm ERR! code E404', '    npm ERR! 404 nope']);
  });
});

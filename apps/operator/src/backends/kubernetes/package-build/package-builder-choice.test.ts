import { describe, expect, it } from 'vitest';
import { packageBuilderFor } from './package-builder-choice.ts';

describe('packageBuilderFor', () => {
  it('builds with npm for the platform runtime image, whatever its registry or tag', () => {
    expect(packageBuilderFor('orrery/runtime:latest', 'orrery/runtime:latest')).toBe('node');
    expect(packageBuilderFor('registry.example.com/orrery/runtime:0.1.0', 'registry.example.com/orrery/runtime:0.1.0')).toBe('node');
    expect(packageBuilderFor('mirror.local/fn-runtime:2', 'mirror.local/fn-runtime:1')).toBe('node');
  });

  it('builds with pip for the Python runtime and refuses unknown images', () => {
    expect(packageBuilderFor('orrery/runtime-python:0.1.0', 'orrery/runtime:latest')).toBe('python');
    expect(packageBuilderFor('example/custom:1', 'orrery/runtime:latest')).toBeUndefined();
  });
});

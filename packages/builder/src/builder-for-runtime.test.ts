import { describe, expect, it } from 'vitest';
import { builderForRuntimeImage } from './builder-for-runtime.ts';

describe('builderForRuntimeImage', () => {
  it.each([
    ['orrery/runtime-node:latest', 'node'],
    ['orrery/runtime-node:0.1.0', 'node'],
    ['registry.example.com:5000/orrery/runtime-node:1', 'node'],
    ['orrery/runtime-node@sha256:' + 'a'.repeat(64), 'node'],
    ['orrery/runtime-python:latest', 'python'],
    ['orrery/runtime-python', 'python'],
    ['orrery/runtime-go:1', undefined],
    ['node:20', undefined],
    ['evil/orrery/runtime-nodejs:1', undefined],
  ])('%s -> %s', (image, want) => expect(builderForRuntimeImage(image)).toBe(want));
});

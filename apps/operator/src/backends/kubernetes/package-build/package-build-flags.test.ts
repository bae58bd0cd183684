import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../wiring/command-line.ts';
import { readPackageBuildFlags } from './package-build-flags.ts';

describe('readPackageBuildFlags', () => {
  it('has defaults: the chart-less builder image, 600 s, a 10Gi ReadWriteOnce volume of the default class', () => {
    expect(readPackageBuildFlags({})).toEqual({ builderImage: 'orrery/builder:latest', timeoutSeconds: 600, volume: { size: '10Gi', accessMode: 'ReadWriteOnce' } });
  });

  it('reads every flag', () => {
    expect(readPackageBuildFlags({ 'builder-image': 'r.example/orrery/builder:0.1.0', 'build-timeout': '15m', 'package-volume-size': '50Gi', 'package-storage-class': 'nfs-client', 'package-volume-access-mode': 'ReadWriteMany' })).toEqual({
      builderImage: 'r.example/orrery/builder:0.1.0',
      timeoutSeconds: 900,
      volume: { size: '50Gi', accessMode: 'ReadWriteMany', storageClass: 'nfs-client' },
    });
  });

  it.each([
    [{ 'build-timeout': '500ms' }, '--build-timeout'],
    [{ 'package-volume-size': 'ten gigs' }, '--package-volume-size'],
    [{ 'package-storage-class': 'Not_A_Class' }, '--package-storage-class'],
    [{ 'package-volume-access-mode': 'ReadOnlyMany' }, '--package-volume-access-mode'],
    [{ 'builder-image': 'a b' }, '--builder-image'],
  ])('%j is a usage error naming the flag', (values, flag) => {
    expect(() => readPackageBuildFlags(values)).toThrow(UsageError);
    expect(() => readPackageBuildFlags(values)).toThrow(flag);
  });
});

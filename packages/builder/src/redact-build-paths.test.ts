import { describe, expect, it } from 'vitest';
import { MAX_HELD_LINE_CHARS, redactBuildPaths, redactingLog, type BuildPathNames } from './redact-build-paths.ts';

const out = '/tmp/orrery-workers-k3Jd9/packages/8a71c0ffee';
const paths: BuildPathNames = {
  package: [`${out}.building-1f2e3d4c5b6a`, out],
  home: ['/tmp/orrery-build-home-a1b2c3d4e5f6', '/private/tmp/orrery-build-home-a1b2c3d4e5f6'],
};

// What npm 10 prints when a file: dependency is missing (paths from a real failed build).
const npmFailure = [
  'npm error code ENOENT',
  'npm error syscall open',
  `npm error path ${out}.building-1f2e3d4c5b6a/vendor/nope-9.9.9.tgz`,
  `npm error errno -2`,
  `npm error enoent ENOENT: no such file or directory, open '${out}.building-1f2e3d4c5b6a/vendor/nope-9.9.9.tgz'`,
  'npm error enoent This is related to npm not being able to find a file.',
  'npm error A complete log of this run can be found in: /tmp/orrery-build-home-a1b2c3d4e5f6/npm-cache/_logs/2026-12-03T16_51_32_000Z-debug-0.log',
  '',
].join('\n');

describe('redactBuildPaths', () => {
  it('names the package folder $PACKAGE and the throwaway HOME $BUILD_HOME, leaving npm\'s words alone', () => {
    expect(redactBuildPaths(npmFailure, paths)).toBe(
      [
        'npm error code ENOENT',
        'npm error syscall open',
        'npm error path $PACKAGE/vendor/nope-9.9.9.tgz',
        'npm error errno -2',
        "npm error enoent ENOENT: no such file or directory, open '$PACKAGE/vendor/nope-9.9.9.tgz'",
        'npm error enoent This is related to npm not being able to find a file.',
        'npm error A complete log of this run can be found in: $BUILD_HOME/npm-cache/_logs/2026-12-03T16_51_32_000Z-debug-0.log',
        '',
      ].join('\n'),
    );
  });

  it('replaces the work folder whole, not as the output folder plus a random suffix', () => {
    // `<out>.building-…` starts with `<out>`: the longer path must win.
    expect(redactBuildPaths(`cd ${out}.building-1f2e3d4c5b6a && ls ${out}`, paths)).toBe('cd $PACKAGE && ls $PACKAGE');
  });

  it('knows a folder by its resolved path too, and each occurrence on a line', () => {
    const pip = 'ERROR: Could not open requirements file: /private/tmp/orrery-build-home-a1b2c3d4e5f6/x and /tmp/orrery-build-home-a1b2c3d4e5f6/y';
    expect(redactBuildPaths(pip, paths)).toBe('ERROR: Could not open requirements file: $BUILD_HOME/x and $BUILD_HOME/y');
  });

  it('leaves other paths, including other builds\' folders, as they are', () => {
    const text = 'Collecting left-pad from /tmp/orrery-build-home-ffffffffffff/x; /usr/lib/python3/dist-packages; /tmp/orrery-workers-k3Jd9/other\n';
    expect(redactBuildPaths(text, paths)).toBe(text);
  });

  it('ignores a trailing slash in a folder and never treats "/" or "" as one', () => {
    expect(redactBuildPaths(`${out}/index.mjs`, { package: [`${out}/`], home: [] })).toBe('$PACKAGE/index.mjs');
    expect(redactBuildPaths('/usr/bin/npm', { package: ['/', ''], home: ['//'] })).toBe('/usr/bin/npm');
  });
});

describe('redactingLog', () => {
  it('redacts a path that arrives split over two chunks, passing on whole lines', () => {
    const seen: string[] = [];
    const log = redactingLog((c) => seen.push(c), paths);
    log.push('npm error path /tmp/orrery-build-ho');
    expect(seen).toEqual([]);
    log.push('me-a1b2c3d4e5f6/npm-cache\nnpm error errno');
    expect(seen).toEqual(['npm error path $BUILD_HOME/npm-cache\n']);
    log.push(` -2 ${out}`);
    log.flush();
    expect(seen.join('')).toBe('npm error path $BUILD_HOME/npm-cache\nnpm error errno -2 $PACKAGE');
    log.flush();
    expect(seen).toHaveLength(2);
  });

  it('passes on a line that never ends once it is longer than the limit', () => {
    const seen: string[] = [];
    const log = redactingLog((c) => seen.push(c), paths);
    log.push('.'.repeat(MAX_HELD_LINE_CHARS));
    expect(seen).toEqual([]);
    log.push('.');
    expect(seen.join('')).toHaveLength(MAX_HELD_LINE_CHARS + 1);
  });
});

import { describe, expect, it } from 'vitest';
import { parseBuildCliArgs } from './build-cli-args.ts';

const sha = 'c'.repeat(64);
const base = ['--archive', 'a.tgz', '--sha256', sha, '--runtime', 'node', '--out', '/o'];

describe('parseBuildCliArgs', () => {
  it('reads every flag, with or without =', () => {
    expect(parseBuildCliArgs([...base, '--main=lib/x.js', '--timeout-seconds', '30', '--result', '/dev/termination-log'])).toEqual({
      archive: 'a.tgz',
      sha256: sha,
      runtime: 'node',
      out: '/o',
      main: 'lib/x.js',
      timeoutSeconds: 30,
      result: '/dev/termination-log',
    });
  });

  it.each([
    [['--archive', 'a'], /--sha256 is required/],
    [[...base, '--bogus', '1'], /unknown flag --bogus/],
    [[...base, 'extra'], /unexpected argument/],
    [[...base, '--main'], /--main needs a value/],
    [['--archive', 'a', '--sha256', 'ABC', '--runtime', 'node', '--out', 'o'], /64 lower-case hex/],
    [['--archive', 'a', '--sha256', sha, '--runtime', 'ruby', '--out', 'o'], /node or python/],
    [[...base, '--timeout-seconds', '0'], /at least 1/],
  ])('refuses %j', (argv, message) => {
    expect(parseBuildCliArgs(argv)).toMatch(message);
  });
});

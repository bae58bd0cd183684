import { describe, expect, it } from 'vitest';
import { chooseBackend } from './backend-choice.ts';
import { UsageError } from './command-line.ts';

describe('chooseBackend', () => {
  it('is local without --backend, keeping every argument', () => {
    expect(chooseBackend(['--port', '7070'])).toEqual({ backend: 'local', args: ['--port', '7070'] });
  });

  it('takes --backend NAME and --backend=NAME out of the arguments, wherever they stand', () => {
    expect(chooseBackend(['--port', '0', '--backend', 'kubernetes', '--server', 'http://x'])).toEqual({ backend: 'kubernetes', args: ['--port', '0', '--server', 'http://x'] });
    expect(chooseBackend(['--backend=local', '--data-dir', 'd'])).toEqual({ backend: 'local', args: ['--data-dir', 'd'] });
  });

  it('refuses any other name, and a --backend without one, naming the flag', () => {
    for (const args of [['--backend', 'docker'], ['--backend'], ['--backend=']]) {
      expect(() => chooseBackend(args)).toThrow(UsageError);
      expect(() => chooseBackend(args)).toThrow('--backend must be local or kubernetes');
    }
  });
});

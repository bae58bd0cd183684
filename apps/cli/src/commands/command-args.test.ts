import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCommandArgs } from './command-args.ts';

const config = { options: { namespace: { type: 'string', short: 'n' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true } as const;

describe('parseCommandArgs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns flags and positionals', () => {
    const parsed = parseCommandArgs('get', 'HELP', ['function', 'web', '-n', 'prod'], config);
    expect(parsed).toMatchObject({ values: { namespace: 'prod' }, positionals: ['function', 'web'] });
  });
  it('prints the help and exits 0 on --help', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(parseCommandArgs('get', 'HELP TEXT', ['--help'], config)).toBe(0);
    expect(log).toHaveBeenCalledWith('HELP TEXT');
  });
  it('says what was wrong, prints the help and exits 2 on an unknown flag', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(parseCommandArgs('get', 'HELP TEXT', ['--bogus'], config)).toBe(2);
    expect(String(error.mock.calls[0]![0])).toMatch(/^orrery get: .*--bogus[\s\S]*HELP TEXT$/);
  });
});

import { describe, expect, it } from 'vitest';
import { registryAuthArgs } from './registry-auth-args.ts';

describe('registry auth flags for the registry processes the operator runs', () => {
  it('name files only, in the registry binary\'s flags', () => {
    expect(registryAuthArgs({ masterKeyFile: '/s/k', previousMasterKeyFile: '/s/old', writeTokensFile: '/s/wt.toml', requireWriteTokens: true })).toEqual([
      '--registry-master-key-file=/s/k',
      '--previous-registry-master-key-file=/s/old',
      '--write-tokens-file=/s/wt.toml',
      '--require-write-tokens',
    ]);
  });

  it('nothing configured: no flags; a previous key alone is ignored', () => {
    expect(registryAuthArgs(undefined)).toEqual([]);
    expect(registryAuthArgs({})).toEqual([]);
    expect(registryAuthArgs({ previousMasterKeyFile: '/s/old' })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { loadWriteTokens } from './write-tokens-config.ts';
import { startupWarnings } from './startup-warnings.ts';

const files: Record<string, string> = {
  '/etc/wt.toml': `
[[write_tokens]]
name = "trade"
token_file = "/etc/trade.token"
namespaces = ["prod", "staging"]
service_prefixes = ["company.trade"]
`,
  '/etc/trade.token': 'trade-secret-0123456789\n',
  '/etc/short.token': 'short\n',
};
const read = (p: string): string => {
  const f = files[p];
  if (f === undefined) throw Object.assign(new Error(`ENOENT: no such file ${p}`), { code: 'ENOENT' });
  return f;
};

describe('write tokens in the config', () => {
  it('reads inline [[auth.write_tokens]] and a write_tokens_file with token_file entries', () => {
    const r = loadWriteTokens([{ name: 'all', token: 'inline-secret-0123456789', namespaces: ['*'], service_prefixes: ['*'] }], '/etc/wt.toml', read);
    expect(r.problems).toEqual([]);
    expect(r.tokens).toEqual([
      { name: 'all', token: 'inline-secret-0123456789', namespaces: ['*'], servicePrefixes: ['*'] },
      { name: 'trade', token: 'trade-secret-0123456789', namespaces: ['prod', 'staging'], servicePrefixes: ['company.trade'] },
    ]);
  });

  it('none configured: no tokens, no problems', () => {
    expect(loadWriteTokens(undefined, undefined, read)).toEqual({ tokens: [], problems: [] });
  });

  it('reports bad entries by name and field, never echoing a token', () => {
    const secret = 'do-not-echo-this-secret';
    const r = loadWriteTokens(
      [
        { name: 'both', token: secret, token_file: '/etc/trade.token', namespaces: ['*'], service_prefixes: ['*'] },
        { name: 'short', token: 'abc', namespaces: ['*'], service_prefixes: ['*'] },
        { name: 'noscope', token: secret, namespaces: [], service_prefixes: ['*'] },
        { name: 'typo', token: secret, namespace: ['*'], service_prefixes: ['*'] },
        { name: 'shortfile', token_file: '/etc/short.token', namespaces: ['*'], service_prefixes: ['*'] },
        { name: 'missing', token_file: '/etc/none', namespaces: ['*'], service_prefixes: ['*'] },
        { name: 'reserved', token: `${secret}-2`, namespaces: ['*'], service_prefixes: ['orrery.functions'] },
      ],
      '/etc/nope.toml',
      read,
    );
    const text = r.problems.join('\n');
    expect(r.problems.length).toBeGreaterThanOrEqual(8);
    expect(text).not.toContain(secret);
    expect(text).toContain('exactly one of token and token_file');
    expect(text).toContain('cannot read write tokens file /etc/nope.toml');
    expect(text).toContain('"shortfile"');
    expect(text).toContain('cannot read token_file /etc/none');
    expect(text).toContain('inside orrery.functions.');
  });

  it('refuses duplicate names and duplicate token values', () => {
    const r = loadWriteTokens(
      [
        { name: 'a', token: 'same-token-0123456789', namespaces: ['*'], service_prefixes: ['*'] },
        { name: 'a', token: 'same-token-0123456789', namespaces: ['*'], service_prefixes: ['*'] },
      ],
      undefined,
      read,
    );
    expect(r.problems).toHaveLength(2);
  });
});

describe('start-up warnings', () => {
  const key = [Buffer.alloc(32)];
  it('open registration is announced; tokens or require_write_tokens silence it', () => {
    expect(startupWarnings({ registryMasterKeys: key, writeTokens: [], requireWriteTokens: false })).toEqual([expect.stringContaining('WARNING: open registration')]);
    expect(startupWarnings({ registryMasterKeys: key, writeTokens: [], requireWriteTokens: true })).toEqual([]);
    expect(startupWarnings({ registryMasterKeys: key, writeTokens: [{ name: 'a', token: 'x'.repeat(16), namespaces: ['*'], servicePrefixes: ['*'] }], requireWriteTokens: false })).toEqual([]);
  });
  it('a registry without a master key says Orrery workers cannot register', () => {
    expect(startupWarnings({ registryMasterKeys: [], writeTokens: [], requireWriteTokens: true })).toEqual([expect.stringContaining('no registry master key')]);
  });
});

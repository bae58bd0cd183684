import { describe, expect, it } from 'vitest';
import { entityKey, namespaceProblem, namespaceScanPattern } from './keys.ts';

describe('keys', () => {
  it('lays keys out as <prefix>:{<namespace>}:e:<id>', () => {
    expect(entityKey('orrery', 'router-quarantine', '10.0.0.1:8080')).toBe('orrery:{router-quarantine}:e:10.0.0.1:8080');
  });
  it('escapes glob characters in the SCAN pattern', () => {
    expect(namespaceScanPattern('orrery', 'ns')).toBe('orrery:{ns}:e:*');
    expect(namespaceScanPattern('a*b', 'n?[x]')).toBe('a\\*b:{n\\?\\[x\\]}:e:*');
  });
  it('rejects empty namespaces and braces', () => {
    expect(namespaceProblem('')).toMatch(/non-empty/);
    expect(namespaceProblem('a}b')).toMatch(/hash tag/);
    expect(namespaceProblem('ok')).toBeUndefined();
  });
});

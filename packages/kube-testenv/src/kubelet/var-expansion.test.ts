import { describe, expect, it } from 'vitest';
import { expandVars, lookupIn } from './var-expansion.ts';

const vars = lookupIn(new Map([['VAR_A', 'A'], ['VAR_B', 'B'], ['VAR_C', 'C'], ['VAR_REF', '$(VAR_A)'], ['VAR_EMPTY', '']]), new Map([['VAR_A', 'shadowed'], ['SVC', 'svc']]));

// Cases from Kubernetes' own expansion_test.go.
describe('expandVars', () => {
  it.each([
    ['whole string', '$(VAR_A)', 'A'],
    ['repeat', '$(VAR_A)-$(VAR_A)', 'A-A'],
    ['beginning', '$(VAR_A)-1', 'A-1'],
    ['middle', '___$(VAR_B)___', '___B___'],
    ['end', '___$(VAR_C)', '___C'],
    ['compound', '$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
    ['escape & expansion', '$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
    ['compound escape', '$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
    ['mixed in escapes', 'f000-$$VAR_A', 'f000-$VAR_A'],
    ['backslash escape ignored', 'foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['backslash escape ignored 2', 'foo\\\\$(VAR_C)bar', 'foo\\\\Cbar'],
    ['lots of backslashes', 'foo\\\\\\\\$(VAR_A)bar', 'foo\\\\\\\\Abar'],
    ['nested var references', '$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
    ['nested var references second type', '$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['value is a reference', '$(VAR_REF)', '$(VAR_A)'],
    ['value is a reference x 2', '%%$(VAR_REF)--$(VAR_REF)%%', '%%$(VAR_A)--$(VAR_A)%%'],
    ['empty var', 'foo$(VAR_EMPTY)bar', 'foobar'],
    ['unterminated expression', 'foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
    ['expression without operator', 'f00__(VAR_A)__', 'f00__(VAR_A)__'],
    ['shell special vars pass through', '$?_boo_$!', '$?_boo_$!'],
    ['bare operators are ignored', '$VAR_A', '$VAR_A'],
    ['undefined vars are passed through', '$(VAR_DNE)', '$(VAR_DNE)'],
    ['multiple undefined vars', '$(VAR_DNE)$(VAR_DNE2)', '$(VAR_DNE)$(VAR_DNE2)'],
    ['multiple operators', '$$$$$$(VAR_A)', '$$$(VAR_A)'],
    ['multiple operators 2', '$$$$$$$(VAR_A)', '$$$A'],
    ['trailing incomplete expression not consumed', '$(VAR_B)_______$(A', 'B_______$(A'],
    ['trailing incomplete expression, no content, is not consumed', '$(VAR_C)_______$(', 'C_______$('],
    ['operator at end of input string is preserved', '$(VAR_A)foobarzab$', 'Afoobarzab$'],
    ['shell escaped incomplete expr', 'foo-\\$(VAR_A', 'foo-\\$(VAR_A'],
    ['lots of $( in middle', '--$($($($($--', '--$($($($($--'],
    ['lots of $( in beginning', '$($($($($--foo$(', '$($($($($--foo$('],
    ['lots of $( at end', 'foo0--$($($($(', 'foo0--$($($($('],
    ['escaped operators in variable names are not escaped', '$(foo$$var)', '$(foo$$var)'],
    ['newline not expanded', '\n', '\n'],
    ['empty name', '$()', '$()'],
  ])('%s', (_name, input, want) => {
    expect(expandVars(input, vars)).toBe(want);
  });

  it('looks in the maps in order', () => {
    expect(expandVars('$(VAR_A) $(SVC)', vars)).toBe('A svc');
  });

  it('leaves a string without $ alone', () => {
    expect(expandVars('plain value', vars)).toBe('plain value');
    expect(expandVars('', vars)).toBe('');
  });
});

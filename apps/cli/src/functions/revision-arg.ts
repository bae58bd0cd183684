/**
 * A revision as typed on the command line: its full name (`counter-00002`) or just its number
 * (`2`, `00002`), which the operator's naming (`<function>-NNNNN`) turns into the name.
 */
export function revisionName(fn: string, arg: string): string {
  return /^\d{1,5}$/.test(arg) ? `${fn}-${arg.padStart(5, '0')}` : arg;
}

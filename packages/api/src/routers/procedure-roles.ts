import { describeProcedures } from '../describe-procedures.ts';

type RouterLike = { _def: { procedures: Record<string, unknown> } };

// The app router registers itself here: the `auth.permissions` handler cannot import it
// (a cycle that would erase the router's inferred type).
let roles: Record<string, string> | undefined;
let source: RouterLike | undefined;

export function publishProcedureRoles(router: RouterLike): void {
  source = router;
  roles = undefined;
}

/** path → minimum role, computed once from the procedures' metadata. */
export function procedureRoles(): Record<string, string> {
  if (!source) throw new Error('procedure roles read before the app router was built');
  roles ??= Object.fromEntries(describeProcedures(source).map((p) => [p.path, p.role]));
  return roles;
}

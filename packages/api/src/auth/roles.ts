import type { Role } from '../context.ts';

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** Roles are ordered: an admin may do what an operator may, an operator what a viewer may. */
export function roleAllows(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}
